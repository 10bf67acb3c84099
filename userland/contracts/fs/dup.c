/* dup/dup2/dup3 (raw dup3: musl checks some cases itself): lowest free fd, shared offset and status flags, dup2 to
 * itself, dup3 to itself is EINVAL, bad fds are EBADF. */
#include "common.h"

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    out("open: %d", fd);
    int d = dup(fd);
    out("dup: %d", d);
    write(fd, "hello", 5);
    out("offset via dup: %ld", (long)lseek(d, 0, SEEK_CUR));
    fcntl(fd, F_SETFL, O_APPEND);
    out("O_APPEND via dup: %s", yesno(fcntl(d, F_GETFL) & O_APPEND));
    close(0);
    out("dup fills the lowest free fd: %d", dup(fd));
    show("dup2(fd, 9)", dup2(fd, 9));
    show("dup2(fd, fd)", dup2(fd, fd));
    show("dup2(bad, 9)", dup2(1000, 9));
    out("fd 9 still open after failed dup2: %s", yesno(fcntl(9, F_GETFD) >= 0));
    show("dup2(fd, -1)", dup2(fd, -1));
    show("dup2(fd, 1000000)", dup2(fd, 1000000));
    show("dup3(fd, fd, 0)", syscall(SYS_dup3, fd, fd, 0));
    show("dup3 bad flags", syscall(SYS_dup3, fd, 11, 0x1));
    show("dup3(fd, 11, 0)", syscall(SYS_dup3, fd, 11, 0));
    show("dup(bad)", dup(1000));
    show("dup(-1)", dup(-1));
    close(fd);
    char buf[8] = {0};
    pread(d, buf, 5, 0);
    out("dup still reads after closing the original: %s", buf);
    show("close twice", close(fd));
    return 0;
}
