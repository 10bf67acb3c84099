/* pread and pwrite move the whole request, as read and write do: a 1 MiB
 * pwrite writes 1 MiB and a 1 MiB pread returns it (Kevlar once stopped
 * both at 64 KiB, which programs that do not retry short transfers, such
 * as Python's os.pwrite, took as the whole write); preadv/pwritev over
 * large segments likewise; a short pread at end of file; EINVAL when
 * offset + length passes the largest offset; EFAULT before anything is
 * written for a bad buffer. */
#include "common.h"
#include <sys/uio.h>

#define BIG (1 << 20)

int main(void)
{
    static char a[BIG + 4096], b[BIG + 4096];
    for (int i = 0; i < BIG; i++)
        a[i] = (char)(i * 7 + (i >> 12));
    int fd = open("big", O_RDWR | O_CREAT | O_TRUNC, 0644);
    show("pwrite 1 MiB at 0", pwrite(fd, a, BIG, 0));
    show("pwrite 1 MiB at 3 MiB + 5", pwrite(fd, a, BIG, 3 * BIG + 5));
    struct stat st;
    fstat(fd, &st);
    out("size %ld", (long)st.st_size);
    show("pread 1 MiB at 0", pread(fd, b, BIG, 0));
    out("same bytes: %s", yesno(memcmp(a, b, BIG) == 0));
    memset(b, 0, BIG);
    show("pread 1 MiB + 4 KiB at 3 MiB + 5 (short at end)", pread(fd, b, BIG + 4096, 3 * BIG + 5));
    out("same bytes: %s", yesno(memcmp(a, b, BIG) == 0));
    show("pread in the hole", pread(fd, b, 200000, BIG + 100));
    int zero = 1;
    for (int i = 0; i < 200000; i++)
        zero &= b[i] == 0;
    out("hole reads zeros: %s", yesno(zero));
    struct iovec iov[2] = {{a, 300000}, {a + 300000, BIG - 300000}};
    show("pwritev 1 MiB at 8 MiB", pwritev(fd, iov, 2, 8 * BIG));
    memset(b, 0, BIG);
    struct iovec riov[2] = {{b, 700000}, {b + 700000, BIG - 700000}};
    show("preadv 1 MiB at 8 MiB", preadv(fd, riov, 2, 8 * BIG));
    out("same bytes: %s", yesno(memcmp(a, b, BIG) == 0));
    show("pread offset + length past the largest offset", pread(fd, b, 4096, 0x7fffffffffffff00LL));
    show("pwrite offset + length past the largest offset", pwrite(fd, a, 4096, 0x7fffffffffffff00LL));
    show("pwrite bad buffer", pwrite(fd, (void *)16, 4096, 0));
    show("pread bad buffer", pread(fd, (void *)16, 4096, 0));
    pread(fd, b, 16, 0);
    out("first bytes kept: %s", yesno(memcmp(a, b, 16) == 0));
    close(fd);
    unlink("big");
    return 0;
}
