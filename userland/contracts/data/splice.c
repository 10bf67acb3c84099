/* splice: file to pipe and pipe to file (with and without offsets, the
 * file position kept or moved), pipe to pipe, Linux's errors (EINVAL for
 * two non-pipes, the same pipe, unknown flags and O_APPEND; ESPIPE for an
 * offset on a pipe; EBADF for wrong access modes), SPLICE_F_NONBLOCK and
 * O_NONBLOCK (EAGAIN), end of file, and EPIPE without readers. */
#include "common.h"

static long sp(int in, loff_t *oin, int outfd, loff_t *oout, size_t len, unsigned flags)
{
    return syscall(SYS_splice, in, oin, outfd, oout, len, flags);
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
    signal(SIGPIPE, SIG_IGN);
    put_file("src", "0123456789abcdef");
    int f = open("src", O_RDONLY);
    int p[2], q[2];
    pipe(p);
    pipe(q);

    show("file to pipe, 4 bytes", sp(f, NULL, p[1], NULL, 4, 0));
    show("file position", lseek(f, 0, SEEK_CUR));
    drain("pipe holds", p[0]);
    loff_t off = 10;
    show("file at offset 10 to pipe", sp(f, &off, p[1], NULL, 100, 0));
    out("offset now %ld, position %ld", (long)off, (long)lseek(f, 0, SEEK_CUR));
    drain("pipe holds", p[0]);
    off = 16;
    show("at end of file", sp(f, &off, p[1], NULL, 100, 0));
    show("length 0", sp(f, NULL, p[1], NULL, 0, 0));

    int o = open("dst", O_RDWR | O_CREAT, 0644);
    write(p[1], "PIPEDATA", 8);
    show("pipe to file, 5 bytes", sp(p[0], NULL, o, NULL, 5, 0));
    show("dst position", lseek(o, 0, SEEK_CUR));
    off = 100;
    show("pipe to file at offset 100", sp(p[0], NULL, o, &off, 64, 0));
    out("offset now %ld, position %ld", (long)off, (long)lseek(o, 0, SEEK_CUR));
    struct stat st;
    fstat(o, &st);
    out("dst size %ld", (long)st.st_size);
    char buf[8] = {0};
    pread(o, buf, 5, 0);
    out("dst starts with %s", buf);

    write(p[1], "hello", 5);
    show("pipe to pipe", sp(p[0], NULL, q[1], NULL, 3, 0));
    drain("second pipe holds", q[0]);
    drain("first pipe keeps", p[0]);

    show("file to file", sp(f, NULL, o, NULL, 4, 0));
    off = 0;
    show("offset on input pipe", sp(p[0], &off, o, NULL, 4, 0));
    show("offset on output pipe", sp(f, NULL, p[1], &off, 4, 0));
    show("pipe to pipe with offset", sp(p[0], NULL, q[1], &off, 4, 0));
    show("pipe to itself", sp(p[0], NULL, p[1], NULL, 4, 0));
    show("unknown flag 0x10", sp(f, NULL, p[1], NULL, 4, 0x10));
    show("bad input fd", sp(99, NULL, p[1], NULL, 4, 0));
    show("bad output fd", sp(f, NULL, 99, NULL, 4, 0));
    show("input is a write end", sp(p[1], NULL, q[1], NULL, 4, 0));
    show("output is a read end", sp(f, NULL, q[0], NULL, 4, 0));
    show("bad offset pointer", sp(f, (loff_t *)8, p[1], NULL, 4, 0));
    off = -1;
    show("negative offset", sp(f, &off, p[1], NULL, 4, 0));
    int a = open("dst", O_WRONLY | O_APPEND);
    write(p[1], "zz", 2);
    show("to an O_APPEND file", sp(p[0], NULL, a, NULL, 2, 0));
    drain("left", p[0]);

    show("empty pipe, SPLICE_F_NONBLOCK", sp(p[0], NULL, o, NULL, 4, SPLICE_F_NONBLOCK));
    show("empty pipe to pipe, SPLICE_F_NONBLOCK", sp(p[0], NULL, q[1], NULL, 4, SPLICE_F_NONBLOCK));
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    show("empty O_NONBLOCK pipe", sp(p[0], NULL, o, NULL, 4, 0));
    fcntl(p[0], F_SETFL, 0);
    /* Fill q, then splice into it. */
    fcntl(q[1], F_SETFL, O_NONBLOCK);
    char big[4096];
    memset(big, 'x', sizeof big);
    while (write(q[1], big, sizeof big) > 0)
        ;
    fcntl(q[1], F_SETFL, 0);
    show("file to a full pipe, SPLICE_F_NONBLOCK", sp(f, NULL, q[1], NULL, 4, SPLICE_F_NONBLOCK));
    close(q[0]);
    show("to a pipe without readers", sp(f, NULL, q[1], NULL, 4, 0));
    close(p[1]);
    show("from an empty pipe without writers", sp(p[0], NULL, o, NULL, 4, 0));
    return 0;
}
