/* sigprocmask blocks delivery; the signal shows in sigpending and is
 * delivered when unblocked (before sigprocmask returns). SIGKILL/SIGSTOP
 * cannot be blocked. Standard signals do not queue; real-time ones do, in
 * order. The mask is inherited by fork and kept across exec; pending
 * signals are not inherited. */
#include "common.h"

static volatile int usr1, rt_count;
static volatile int rt_vals[8];
static void h(int s) { (void)s; usr1++; }
static void rt(int s, siginfo_t *si, void *uc)
{
    (void)s;
    (void)uc;
    if (rt_count < 8)
        rt_vals[rt_count] = si->si_value.sival_int;
    rt_count++;
}

int main(void)
{
    signal(SIGUSR1, h);
    sigset_t m, old, pend;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigaddset(&m, SIGKILL);
    sigaddset(&m, SIGSTOP);
    check("block SIGUSR1+SIGKILL+SIGSTOP", sigprocmask(SIG_BLOCK, &m, &old));
    sigset_t cur;
    sigprocmask(SIG_SETMASK, NULL, &cur);
    out("blocked: SIGUSR1=%s SIGKILL=%s SIGSTOP=%s", yesno(sigismember(&cur, SIGUSR1)), yesno(sigismember(&cur, SIGKILL)),
        yesno(sigismember(&cur, SIGSTOP)));
    raise(SIGUSR1);
    raise(SIGUSR1);
    raise(SIGUSR1);
    sigpending(&pend);
    out("after 3 raises: handler ran %d, pending SIGUSR1=%s", usr1, yesno(sigismember(&pend, SIGUSR1)));

    pid_t pid = fork();
    if (pid == 0) {
        sigset_t cp, cm;
        sigpending(&cp);
        sigprocmask(SIG_SETMASK, NULL, &cm);
        out("child: pending SIGUSR1=%s, blocked SIGUSR1=%s", yesno(sigismember(&cp, SIGUSR1)), yesno(sigismember(&cm, SIGUSR1)));
        execve(HELPERS "/probe", (char *[]){"probe", "sig", NULL}, (char *[]){NULL});
        _exit(100);
    }
    reap("child", pid);

    sigprocmask(SIG_UNBLOCK, &m, NULL);
    out("after unblock: handler ran %d (standard signals do not queue)", usr1);
    sigpending(&pend);
    out("pending now: %s", yesno(sigismember(&pend, SIGUSR1)));

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rt;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGRTMIN + 1, &sa, NULL);
    sigemptyset(&m);
    sigaddset(&m, SIGRTMIN + 1);
    sigprocmask(SIG_BLOCK, &m, NULL);
    for (int i = 1; i <= 3; i++)
        sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = i * 10});
    sigprocmask(SIG_UNBLOCK, &m, NULL);
    out("real-time signal delivered %d times, values %d %d %d", rt_count, rt_vals[0], rt_vals[1], rt_vals[2]);

    check("SIG_SETMASK bad how", sigprocmask(42, &m, NULL));
    sigset_t full;
    sigfillset(&full);
    sigprocmask(SIG_SETMASK, &full, NULL);
    sigprocmask(SIG_SETMASK, NULL, &cur);
    out("after blocking everything: SIGKILL=%s SIGSTOP=%s SIGTERM=%s", yesno(sigismember(&cur, SIGKILL)),
        yesno(sigismember(&cur, SIGSTOP)), yesno(sigismember(&cur, SIGTERM)));
    long r = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, NULL, 4);
    out("rt_sigprocmask with sigsetsize 4: %s", r < 0 ? errname(errno) : "ok");
    return 0;
}
