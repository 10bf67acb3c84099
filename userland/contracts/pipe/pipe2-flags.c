/* pipe/pipe2: lowest fds, read end read-only and write end write-only,
 * O_CLOEXEC and O_NONBLOCK flags, invalid flags are EINVAL. */
#include "common.h"

static void fl(const char *label, int fd)
{
    int f = fcntl(fd, F_GETFL), d = fcntl(fd, F_GETFD);
    out("%s: %s%s%s", label, (f & 3) == O_RDONLY ? "O_RDONLY" : (f & 3) == O_WRONLY ? "O_WRONLY" : "O_RDWR",
        f & O_NONBLOCK ? "|O_NONBLOCK" : "", d & FD_CLOEXEC ? " cloexec" : "");
}

int main(void)
{
    int p[2];
    check("pipe", pipe(p));
    out("fds: %d %d", p[0], p[1]);
    fl("read end", p[0]);
    fl("write end", p[1]);
    show("write to read end", write(p[0], "x", 1));
    char c;
    show("read from write end", read(p[1], &c, 1));
    int q[2];
    check("pipe2 O_CLOEXEC|O_NONBLOCK", pipe2(q, O_CLOEXEC | O_NONBLOCK));
    fl("read end", q[0]);
    fl("write end", q[1]);
    int r[2];
    check("pipe2 O_DIRECT", pipe2(r, O_DIRECT));
    check("pipe2 bad flags", pipe2(r, O_APPEND));
    check("pipe2 O_RDWR", pipe2(r, O_RDWR));
    struct stat st;
    fstat(p[0], &st);
    out("fstat: %s mode=%o", ftype(st.st_mode), st.st_mode & 0777);
    check("fcntl F_SETFL O_NONBLOCK", fcntl(p[0], F_SETFL, O_NONBLOCK));
    show("read empty non-blocking", read(p[0], &c, 1));
    return 0;
}
