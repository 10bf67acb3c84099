/* mincore: residency of anonymous pages (untouched 0, touched 1), of a
 * file mapping whose data is in memory, of shared anonymous memory across
 * fork; its argument errors (EINVAL, ENOMEM, EFAULT) in Linux's order. */
#include "common.h"
#include <sys/mman.h>

static void show_vec(const char *label, void *p, size_t len)
{
    unsigned char vec[16];
    memset(vec, 0xee, sizeof vec);
    int r = mincore(p, len, vec);
    if (r != 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    char s[20];
    size_t pages = (len + 4095) / 4096, i;
    for (i = 0; i < pages && i < 16; i++)
        s[i] = '0' + (vec[i] & 1);
    s[i] = 0;
    out("%s: %s (next byte untouched: %s)", label, s, yesno(i < 16 && vec[i] == 0xee));
}

int main(void)
{
    char *p = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    show_vec("untouched", p, 8 * 4096);
    p[0] = 1;
    p[3 * 4096] = 1;
    p[7 * 4096 + 100] = 1;
    show_vec("pages 0, 3, 7 written", p, 8 * 4096);
    show_vec("length 5 bytes", p, 5);
    show_vec("length 4097", p, 4097);
    madvise(p, 4 * 4096, MADV_DONTNEED);
    show_vec("after MADV_DONTNEED of 0-3", p, 8 * 4096);

    unsigned char vec[16];
    check("unaligned start", mincore(p + 1, 4096, vec));
    check("length 0 of unmapped memory", mincore((void *)0x10000, 0, vec));
    check("unmapped", mincore((void *)0x10000, 4096, vec));
    check("range past user space", mincore((void *)0x7ffffffff000, 0x2000, vec));
    check("bad vector", mincore(p, 4096, (void *)8));
    check("kernel vector", mincore(p, 4096, (void *)0xffff800000000000UL));
    munmap(p + 2 * 4096, 4096);
    check("over a hole", mincore(p, 4 * 4096, vec));
    check("vector check before the hole", mincore(p, 4 * 4096, (void *)0xffff800000000000UL));

    /* A file whose data was just written is in memory. */
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char buf[3 * 4096];
    memset(buf, 'x', sizeof buf);
    write(fd, buf, sizeof buf);
    char *f = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, fd, 0);
    show_vec("file mapping, not touched", f, 3 * 4096);

    /* Shared anonymous memory written by a child. */
    char *s = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid = fork();
    if (pid == 0) {
        s[4096] = 1;
        _exit(0);
    }
    reap("child", pid);
    show_vec("shared anonymous, page 1 written by the child", s, 4 * 4096);
    return 0;
}
