/* madvise(MADV_DONTNEED): anonymous private pages read back as zeros,
 * private file pages revert to the file's contents; bad advice is EINVAL. */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *a = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(a, 'q', 2 * pg);
    check("MADV_DONTNEED anon first page", madvise(a, pg, MADV_DONTNEED));
    out("anon after: first=%d second=%c", a[0], a[pg]);

    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char buf[8192];
    memset(buf, 'F', sizeof buf);
    write(fd, buf, sizeof buf);
    char *f = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    f[0] = 'm';
    f[pg] = 'm';
    check("MADV_DONTNEED private file", madvise(f, 2 * pg, MADV_DONTNEED));
    out("private file after: %c %c", f[0], f[pg]);

    char *s = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    s[0] = 'S';
    check("MADV_DONTNEED shared file", madvise(s, pg, MADV_DONTNEED));
    out("shared file after: %c", s[0]);

    check("MADV_NORMAL", madvise(a, pg, MADV_NORMAL));
    check("MADV_WILLNEED", madvise(a, pg, MADV_WILLNEED));
    check("MADV_SEQUENTIAL", madvise(a, pg, MADV_SEQUENTIAL));
    check("bad advice", madvise(a, pg, 12345));
    check("unaligned", madvise(a + 1, pg, MADV_DONTNEED));
    munmap(a, 2 * pg);
    check("unmapped range", madvise(a, pg, MADV_DONTNEED));
    return 0;
}
