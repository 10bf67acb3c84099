/* After fork, parent and child share open file descriptions (the offset)
 * but not descriptor tables: closing in the child does not close in the
 * parent. */
#include "common.h"

int main(void)
{
    int fd = open("f", O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(fd, "abc", 3);
    pid_t pid = fork();
    if (pid == 0) {
        write(fd, "defg", 4);
        close(fd);
        _exit(0);
    }
    reap("child", pid);
    out("parent offset after child's write: %ld", (long)lseek(fd, 0, SEEK_CUR));
    out("fd still open in parent: %s", yesno(fcntl(fd, F_GETFD) >= 0));
    char buf[16] = {0};
    pread(fd, buf, sizeof buf - 1, 0);
    out("contents: %s", buf);

    /* fd flags are per descriptor, status flags per description. */
    pid = fork();
    if (pid == 0) {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, O_APPEND);
        _exit(0);
    }
    reap("child", pid);
    out("FD_CLOEXEC in parent: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    out("O_APPEND in parent: %s", yesno(fcntl(fd, F_GETFL) & O_APPEND));
    return 0;
}
