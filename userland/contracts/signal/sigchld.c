/* SIGCHLD on child exit: an SA_SIGINFO handler sees CLD_EXITED/CLD_KILLED
 * with the status and pid; with SA_NOCLDSTOP no SIGCHLD comes for stops. */
#include "common.h"

static volatile int n, code, status, pid_ok;
static volatile pid_t expect;

static void h(int s, siginfo_t *si, void *uc)
{
    (void)s;
    (void)uc;
    n++;
    code = si->si_code;
    status = si->si_status;
    pid_ok = si->si_pid == expect;
}

static const char *cname(int c)
{
    return c == CLD_EXITED ? "CLD_EXITED" : c == CLD_KILLED ? "CLD_KILLED" : c == CLD_STOPPED ? "CLD_STOPPED" :
           c == CLD_CONTINUED ? "CLD_CONTINUED" : c == CLD_DUMPED ? "CLD_DUMPED" : "other";
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGCHLD);
    sigprocmask(SIG_BLOCK, &m, NULL);
    sigset_t empty;
    sigemptyset(&empty);

    pid_t pid = fork();
    if (pid == 0)
        _exit(9);
    expect = pid;
    sigsuspend(&empty);
    out("exit: count=%d code=%s status=%d pid ok=%s", n, cname(code), status, yesno(pid_ok));
    reap("child", pid);

    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    expect = pid;
    n = 0;
    kill(pid, SIGTERM);
    sigsuspend(&empty);
    out("killed: count=%d code=%s status=%s", n, cname(code), signame(status));
    reap("child", pid);

    sa.sa_flags = SA_SIGINFO | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    expect = pid;
    n = 0;
    kill(pid, SIGSTOP);
    int st;
    waitpid(pid, &st, WUNTRACED);
    sigprocmask(SIG_UNBLOCK, &m, NULL);
    sigprocmask(SIG_BLOCK, &m, NULL);
    out("stop with SA_NOCLDSTOP: count=%d", n);
    kill(pid, SIGKILL);
    sigsuspend(&empty);
    out("then kill: count=%d code=%s", n, cname(code));
    reap("child", pid);
    return 0;
}
