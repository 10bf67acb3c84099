/* sigtimedwait/sigwaitinfo: a pending blocked signal is taken without
 * running the handler; with nothing pending the timeout gives EAGAIN;
 * a signal sent meanwhile wakes it; bad timeouts are EINVAL. */
#include "common.h"

static volatile int handled;
static void h(int s) { (void)s; handled++; }

int main(void)
{
    signal(SIGUSR1, h);
    signal(SIGUSR2, h);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigaddset(&m, SIGUSR2);
    sigprocmask(SIG_BLOCK, &m, NULL);
    struct timespec t = {0, 50000000};
    siginfo_t si;
    long long t0 = now_ns(CLOCK_MONOTONIC);
    errno = 0;
    int r = sigtimedwait(&m, &si, &t);
    out("nothing pending: %d %s, waited >= 50 ms: %s", r, errname(errno), yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000LL));
    struct timespec zero = {0, 0};
    r = sigtimedwait(&m, &si, &zero);
    out("zero timeout: %d %s", r, errname(errno));
    raise(SIGUSR2);
    raise(SIGUSR1);
    r = sigtimedwait(&m, &si, &t);
    out("first taken: %s (lowest number first) si_code=%s", signame(r), si.si_code == SI_TKILL ? "SI_TKILL" : "other");
    r = sigwaitinfo(&m, &si);
    out("second taken: %s", signame(r));
    out("handler never ran: %s", yesno(handled == 0));
    pid_t me = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        msleep(50);
        kill(me, SIGUSR2);
        _exit(0);
    }
    struct timespec longt = {5, 0};
    r = sigtimedwait(&m, &si, &longt);
    out("woken by child: %s si_code=%s pid is child=%s", signame(r), si.si_code == SI_USER ? "SI_USER" : "other", yesno(si.si_pid == pid));
    reap("child", pid);
    struct timespec bad = {0, -1};
    r = sigtimedwait(&m, &si, &bad);
    out("bad timeout: %d %s", r, errname(errno));
    /* Waiting for a signal that is not blocked still works when it is
     * generated with it pending... only blocked signals are defined; skip. */
    return 0;
}
