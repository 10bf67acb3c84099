/* remap_file_pages (deprecated, emulated by Linux 6.1): a page of a shared
 * file mapping shows another page of the file afterwards, and writes
 * through it reach that page; a shared anonymous mapping likewise; the
 * start is rounded down to a page; EINVAL for a protection, an empty
 * range, a private or missing mapping, a range running into a gap. */
#include "common.h"
#include <sys/mman.h>

static long rfp(void *start, size_t size, int prot, size_t pgoff, int flags)
{
    return syscall(SYS_remap_file_pages, start, size, prot, pgoff, flags);
}

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    char page[4096];
    for (int i = 0; i < 4; i++) {
        memset(page, 'A' + i, sizeof page);
        write(fd, page, sizeof page);
    }
    char *m = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    out("before: %c %c %c %c", m[0], m[4096], m[8192], m[12288]);
    check("page 0 from file page 3", rfp(m, 4096, 0, 3, 0));
    out("after: %c %c %c %c", m[0], m[4096], m[8192], m[12288]);
    m[1] = 'z';
    char back[2] = { 0 };
    pread(fd, back, 1, 3 * 4096 + 1);
    out("write reached file page 3: %s", back);
    check("unaligned start, pages 1-2 from file pages 0-1", rfp(m + 4096 + 100, 2 * 4096, 0, 0, 0));
    out("after: %c %c %c %c", m[0], m[4096], m[8192], m[12288]);
    check("MAP_NONBLOCK", rfp(m, 4096, 0, 2, MAP_NONBLOCK));
    out("after: %c", m[0]);
    check("prot PROT_READ", rfp(m, 4096, PROT_READ, 1, 0));
    check("size 0", rfp(m, 0, 0, 1, 0));
    check("size below a page", rfp(m, 100, 0, 1, 0));
    check("wrapping page offset", rfp(m, 4096, 0, (size_t)-1, 0));
    check("past the mapping", rfp(m, 5 * 4096, 0, 0, 0));

    char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    check("private file mapping", rfp(p, 4096, 0, 1, 0));
    munmap(p, 2 * 4096);
    check("unmapped", rfp(p, 4096, 0, 1, 0));

    char *s = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    s[0] = '0';
    s[4096] = '1';
    s[8192] = '2';
    check("shared anonymous: page 0 from page 2", rfp(s, 4096, 0, 2, 0));
    out("shared anonymous after: %c %c %c", s[0], s[4096], s[8192]);
    char *r = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);
    munmap(m, 4 * 4096);
    mprotect(r + 4096, 4096, PROT_READ | PROT_EXEC);
    check("across two protections", rfp(r, 2 * 4096, 0, 0, 0));
    return 0;
}
