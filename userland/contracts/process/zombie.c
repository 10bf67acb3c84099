/* An exited child stays a zombie until reaped: it still exists for kill(pid, 0)
 * and for waitid(WNOWAIT); after wait it is gone (ESRCH). */
#include "common.h"

int main(void)
{
    int pfd[2];
    pipe(pfd);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        _exit(6);
    }
    close(pfd[1]);
    char c;
    out("read returns 0 once the child is gone: %ld", (long)read(pfd[0], &c, 1));
    /* The pipe closed when the child exited; give it time to become a zombie. */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    waitid(P_PID, pid, &si, WEXITED | WNOWAIT);
    out("zombie: si_status=%d", si.si_status);
    show("kill(zombie, 0)", kill(pid, 0));
    show("kill(zombie, SIGKILL)", kill(pid, SIGKILL));
    reap("reaped", pid);
    show("kill(reaped, 0)", kill(pid, 0));
    return 0;
}
