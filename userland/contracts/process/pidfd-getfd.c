/* pidfd_getfd: flags must be 0 (EINVAL), the pidfd must be one (EBADF),
 * the descriptor must be open in the target (EBADF); the copy is the same
 * open file (shared offset) and close-on-exec; an unprivileged caller
 * needs ptrace access (EPERM); a zombie has no files (EBADF) and a reaped
 * process is gone (ESRCH). */
#include "common.h"
#include <sys/wait.h>

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static long getfd(int pidfd, int fd, unsigned flags) { return syscall(SYS_pidfd_getfd, pidfd, fd, flags); }

int main(void)
{
    int go[2], ready[2];
    pipe(go);
    pipe(ready);
    pid_t child = fork();
    if (child == 0) {
        /* The child opens a file at a known descriptor and waits. */
        int fd = open("shared", O_RDWR | O_CREAT, 0600);
        dup2(fd, 42);
        write(42, "hello", 5);
        write(ready[1], "r", 1);
        char c;
        read(go[0], &c, 1);
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    int pidfd = syscall(SYS_pidfd_open, child, 0);
    check("pidfd_open", pidfd);
    check("flags 1", getfd(pidfd, 42, 1));
    check("not a pidfd", getfd(go[0], 42, 0));
    check("closed pidfd", getfd(999, 42, 0));
    check("fd not open in target", getfd(pidfd, 77, 0));
    check("negative fd", getfd(pidfd, -1, 0));
    int fd = getfd(pidfd, 42, 0);
    check("fd 42", fd);
    out("close-on-exec: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    out("offset shared (5): %ld", (long)lseek(fd, 0, SEEK_CUR));
    out("access mode O_RDWR: %s", yesno((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR));
    int own = getfd(pidfd, 1, 0);
    out("target's stdout is ours too: %s", yesno(own >= 0));

    /* Without ptrace access (another uid, no CAP_SYS_PTRACE): EPERM. */
    pid_t other = fork();
    if (other == 0) {
        if (setresuid(65534, 65534, 65534) != 0)
            _exit(9);
        check("other uid", getfd(pidfd, 42, 0));
        _exit(0);
    }
    reap("unprivileged", other);

    write(go[1], "g", 1);
    siginfo_t si;
    waitid(P_PID, child, &si, WEXITED | WNOWAIT);
    check("zombie", getfd(pidfd, 42, 0));
    waitpid(child, NULL, 0);
    check("reaped", getfd(pidfd, 42, 0));
    return 0;
}
