/* Reports process state that survives execve, for exec tests:
 *   probe fd N...        whether each fd is open
 *   probe sig            dispositions and mask bits of SIGUSR1/SIGUSR2, pending set
 *   probe pid-is PID     whether getpid() equals PID (pids are never printed)
 *   probe ids            real/effective uid and gid
 *   probe cwd            the working directory */
#include "common.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "fd")) {
        for (int i = 2; i < argc; i++) {
            int fd = atoi(argv[i]);
            out("probe: fd %d %s", fd, fcntl(fd, F_GETFD) >= 0 ? "open" : "closed");
        }
    } else if (!strcmp(argv[1], "sig")) {
        int sigs[] = {SIGUSR1, SIGUSR2, SIGCHLD};
        sigset_t mask, pend;
        sigprocmask(SIG_SETMASK, NULL, &mask);
        sigpending(&pend);
        for (int i = 0; i < 3; i++) {
            struct sigaction sa;
            sigaction(sigs[i], NULL, &sa);
            const char *d = sa.sa_handler == SIG_IGN ? "ignored"
                          : sa.sa_handler == SIG_DFL ? "default" : "handler";
            out("probe: %s disposition=%s blocked=%s pending=%s", signame(sigs[i]), d,
                yesno(sigismember(&mask, sigs[i])), yesno(sigismember(&pend, sigs[i])));
        }
    } else if (!strcmp(argv[1], "pid-is") && argc > 2) {
        out("probe: same pid: %s", yesno(getpid() == atoi(argv[2])));
    } else if (!strcmp(argv[1], "ids")) {
        out("probe: uid=%d euid=%d gid=%d egid=%d", getuid(), geteuid(), getgid(), getegid());
    } else if (!strcmp(argv[1], "cwd")) {
        char buf[512];
        out("probe: cwd=%s", getcwd(buf, sizeof buf) ? buf : errname(errno));
    } else {
        return 2;
    }
    return 0;
}
