/* vmsplice: user memory into a pipe's write end (iovecs gathered in
 * order), out of a read end, EBADF for files that are not pipes, EINVAL for
 * unknown flags and more than 1024 iovecs, EAGAIN on a full pipe with
 * SPLICE_F_NONBLOCK, 0 for empty iovecs. */
#include "common.h"
#include <sys/uio.h>

static long vms(int fd, struct iovec *iov, unsigned long n, unsigned flags)
{
    return syscall(SYS_vmsplice, fd, iov, n, flags);
}

int main(void)
{
    int p[2];
    pipe(p);
    struct iovec iov[2] = {{"hello ", 6}, {"world", 5}};
    show("into the write end", vms(p[1], iov, 2, 0));
    char a[4] = {0}, b[16] = {0};
    struct iovec rd[2] = {{a, 3}, {b, 15}};
    show("out of the read end", vms(p[0], rd, 2, 0));
    out("got '%s' '%s'", a, b);
    show("empty iovecs", vms(p[1], iov, 0, 0));
    struct iovec zero = {"x", 0};
    show("zero-length iovec", vms(p[1], &zero, 1, 0));
    show("unknown flag", vms(p[1], iov, 2, 0x10));
    static struct iovec many[1025];
    for (int i = 0; i < 1025; i++)
        many[i] = (struct iovec){"x", 1};
    show("1025 iovecs", vms(p[1], many, 1025, 0));
    show("bad iovec pointer", vms(p[1], (struct iovec *)8, 1, 0));
    int f = open("file", O_RDWR | O_CREAT, 0644);
    show("regular file", vms(f, iov, 2, 0));
    show("bad fd", vms(99, iov, 2, 0));
    int fl = open("file", O_RDONLY);
    show("read-only regular file", vms(fl, iov, 2, 0));
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    char big[4096];
    memset(big, 'x', sizeof big);
    while (write(p[1], big, sizeof big) > 0)
        ;
    fcntl(p[1], F_SETFL, 0);
    show("full pipe, SPLICE_F_NONBLOCK", vms(p[1], iov, 2, SPLICE_F_NONBLOCK));
    int q[2];
    pipe(q);
    show("empty pipe read, SPLICE_F_NONBLOCK", vms(q[0], rd, 2, SPLICE_F_NONBLOCK));
    return 0;
}
