/* tee: copies a pipe's data into another without consuming it, up to the
 * length; EINVAL for the same pipe, non-pipes and unknown flags; EAGAIN
 * with SPLICE_F_NONBLOCK on an empty pipe; 0 when the input has no
 * writers; a length of 0. */
#include "common.h"

static long tee_(int in, int outfd, size_t len, unsigned flags)
{
    return syscall(SYS_tee, in, outfd, len, flags);
}

static void drain(const char *label, int fd)
{
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n < 0 ? 0 : n] = 0;
    out("%s: %ld '%s'", label, (long)n, buf);
}

int main(void)
{
    int p[2], q[2];
    pipe(p);
    pipe(q);
    write(p[1], "abcdefgh", 8);
    show("tee 5", tee_(p[0], q[1], 5, 0));
    drain("copy", q[0]);
    show("tee all", tee_(p[0], q[1], 100, 0));
    drain("copy", q[0]);
    drain("original", p[0]);
    show("length 0", tee_(p[0], q[1], 0, 0));
    show("length 0 with a bad flag", tee_(p[0], q[1], 0, 0x10));
    show("same pipe", tee_(p[0], p[1], 4, 0));
    int f = open("file", O_RDWR | O_CREAT, 0644);
    write(f, "data", 4);
    lseek(f, 0, SEEK_SET);
    show("file to pipe", tee_(f, q[1], 4, 0));
    show("pipe to file", tee_(p[0], f, 4, 0));
    show("bad fd", tee_(99, q[1], 4, 0));
    show("write end as input", tee_(p[1], q[1], 4, 0));
    show("empty, SPLICE_F_NONBLOCK", tee_(p[0], q[1], 4, SPLICE_F_NONBLOCK));
    fcntl(q[1], F_SETFL, O_NONBLOCK);
    show("empty, O_NONBLOCK output", tee_(p[0], q[1], 4, 0));
    fcntl(q[1], F_SETFL, 0);
    close(p[1]);
    show("empty without writers", tee_(p[0], q[1], 4, 0));
    return 0;
}
