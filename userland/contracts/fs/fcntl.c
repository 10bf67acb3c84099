/* fcntl: F_DUPFD picks the lowest fd >= arg, F_GETFL reports access mode
 * and status flags, F_SETFL changes only O_APPEND/O_NONBLOCK (access mode
 * and creation flags are ignored), bad commands are EINVAL. */
#include "common.h"

static void flags(const char *label, int fd)
{
    int f = fcntl(fd, F_GETFL);
    /* musl's O_ACCMODE includes O_PATH; the kernel's access mode is 2 bits. */
    const char *acc = (f & 3) == O_RDONLY ? "O_RDONLY" : (f & 3) == O_WRONLY ? "O_WRONLY" : "O_RDWR";
    out("%s: %s%s%s%s", label, acc, f & O_APPEND ? "|O_APPEND" : "", f & O_NONBLOCK ? "|O_NONBLOCK" : "",
        (f & O_PATH) == O_PATH ? "|O_PATH" : "");
}

int main(void)
{
    int fd = open("f", O_WRONLY | O_CREAT | O_APPEND, 0644);
    show("F_DUPFD 10", fcntl(fd, F_DUPFD, 10));
    show("F_DUPFD 10 again", fcntl(fd, F_DUPFD, 10));
    show("F_DUPFD 0", fcntl(fd, F_DUPFD, 0));
    show("F_DUPFD -1", fcntl(fd, F_DUPFD, -1));
    show("F_DUPFD_CLOEXEC 30", fcntl(fd, F_DUPFD_CLOEXEC, 30));
    flags("F_GETFL", fd);
    check("F_SETFL O_NONBLOCK|O_RDWR|O_CREAT", fcntl(fd, F_SETFL, O_NONBLOCK | O_RDWR | O_CREAT));
    flags("after", fd);
    check("F_SETFL 0", fcntl(fd, F_SETFL, 0));
    flags("after", fd);
    int r = open("f", O_RDWR);
    flags("O_RDWR fd", r);
    show("F_GETFD", fcntl(r, F_GETFD));
    show("F_SETFD FD_CLOEXEC", fcntl(r, F_SETFD, FD_CLOEXEC));
    show("F_GETFD", fcntl(r, F_GETFD));
    show("bad command", fcntl(r, 12345));
    show("F_GETFL on bad fd", fcntl(1000, F_GETFL));
    int p = open(".", O_PATH);
    flags("O_PATH fd", p);
    return 0;
}
