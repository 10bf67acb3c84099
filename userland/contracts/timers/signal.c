/* A POSIX timer's signal: si_code SI_TIMER, si_timerid, si_value and
 * si_overrun; the default sigevent (SIGALRM, si_value = the id); SIGEV_NONE
 * never signals; a one-shot timer reads 0 after it fired; TIMER_ABSTIME in
 * the past fires at once; a periodic timer whose signal stays blocked
 * counts overruns, reported in si_overrun and by timer_getoverrun. */
#include "timers.h"

static volatile int got, code, timerid, overrun, sival, signo;

static void handler(int s, siginfo_t *si, void *uc)
{
    (void)uc;
    got++;
    signo = s;
    code = si->si_code;
    timerid = si->si_timerid;
    overrun = si->si_overrun;
    sival = si->si_value.sival_int;
}

static void wait_got(int n)
{
    for (int i = 0; i < 500 && got < n; i++)
        msleep(10);
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGRTMIN, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    int a, b, c;
    struct ksigevent ev = {0};
    ev.notify = SIGEV_SIGNAL;
    ev.signo = SIGRTMIN;
    ev.value.sival_int = 4242;
    rcheck("create SIGRTMIN", tcreate(CLOCK_MONOTONIC, &ev, &a));
    rcheck("create default", tcreate(CLOCK_REALTIME, NULL, &b));
    ev.notify = SIGEV_NONE;
    rcheck("create SIGEV_NONE", tcreate(CLOCK_MONOTONIC, &ev, &c));

    struct kitimerspec cur, old;
    rcheck("arm one-shot 20 ms", tset(a, 0, 20000000, 0, NULL));
    tget(a, &cur);
    out("remaining in (0, 20 ms]: %s", yesno(ts_ns(cur.value) > 0 && ts_ns(cur.value) <= 20000000));
    wait_got(1);
    out("signal %s, count %d, code SI_TIMER: %s, timerid matches: %s, value %d, overrun %d",
        signame(signo), got, yesno(code == SI_TIMER), yesno(timerid == a), sival, overrun);
    tget(a, &cur);
    out("after it fired: value %lld interval %lld", ts_ns(cur.value), ts_ns(cur.interval));
    rcheck("getoverrun one-shot", rawsys(SYS_timer_getoverrun, a, 0, 0, 0, 0, 0));

    got = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    rcheck("default timer, TIMER_ABSTIME in the past", tset(b, TIMER_ABSTIME, ts_ns(now) - 1000000000LL, 0, NULL));
    wait_got(1);
    out("signal %s, code SI_TIMER: %s, value is the id: %s", signame(signo), yesno(code == SI_TIMER), yesno(sival == b));

    got = 0;
    rcheck("SIGEV_NONE armed 30 ms", tset(c, 0, 30000000, 0, NULL));
    tget(c, &cur);
    out("SIGEV_NONE remaining > 0: %s", yesno(ts_ns(cur.value) > 0));
    msleep(100);
    tget(c, &cur);
    out("SIGEV_NONE after expiry: value %lld, signals %d", ts_ns(cur.value), got);
    rcheck("SIGEV_NONE periodic 10 ms", tset(c, 0, 10000000, 10000000, NULL));
    msleep(55);
    tget(c, &cur);
    out("SIGEV_NONE periodic: value in (0, 10 ms]: %s, interval %lld", yesno(ts_ns(cur.value) > 0 && ts_ns(cur.value) <= 10000000), ts_ns(cur.interval));
    rcheck("disarm, old setting", tset(c, 0, 0, 0, &old));
    out("  old interval %lld, old value in (0, 10 ms]: %s", ts_ns(old.interval), yesno(ts_ns(old.value) > 0 && ts_ns(old.value) <= 10000000));
    tget(c, &cur);
    /* Linux still reports the last expiry of a disarmed SIGEV_NONE timer:
     * what was left of the old value, or 0 once that time has passed (a
     * busy host can take that long between the two calls). */
    out("disarmed: value within the old one: %s, interval %lld", yesno(ts_ns(cur.value) >= 0 && ts_ns(cur.value) <= ts_ns(old.value)), ts_ns(cur.interval));

    /* Periodic with the signal blocked: one signal, overruns counted. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &set, NULL);
    got = 0;
    rcheck("periodic 5 ms", tset(a, 0, 5000000, 5000000, NULL));
    msleep(200);
    sigset_t pend;
    sigpending(&pend);
    out("pending while blocked: %s", yesno(sigismember(&pend, SIGRTMIN)));
    tget(a, &cur);
    out("periodic remaining in (0, 5 ms]: %s", yesno(ts_ns(cur.value) > 0 && ts_ns(cur.value) <= 5000000));
    tset(a, 0, 0, 0, NULL);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    /* The timer was set again before its signal was taken: the signal
     * does not count the periods after. */
    out("one signal: %s, overrun %d", yesno(got == 1), overrun);
    long gor = rawsys(SYS_timer_getoverrun, a, 0, 0, 0, 0, 0);
    out("getoverrun after settime reset it: %ld", gor);

    /* Again, with getoverrun read before any new settime. */
    got = 0;
    sigprocmask(SIG_BLOCK, &set, NULL);
    tset(a, 0, 5000000, 5000000, NULL);
    msleep(100);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    gor = rawsys(SYS_timer_getoverrun, a, 0, 0, 0, 0, 0);
    out("getoverrun equals si_overrun of the signal taken: %s, > 3: %s", yesno(gor == overrun), yesno(gor > 3));
    /* The timer runs on after the signal was taken. */
    got = 0;
    msleep(50);
    out("fired again after: %s", yesno(got > 0));
    tset(a, 0, 0, 0, NULL);
    rcheck("delete", rawsys(SYS_timer_delete, a, 0, 0, 0, 0, 0));

    /* A deleted timer's queued signal stays. */
    ev.notify = SIGEV_SIGNAL;
    ev.signo = SIGUSR1;
    int d;
    tcreate(CLOCK_MONOTONIC, &ev, &d);
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    got = 0;
    tset(d, 0, 1000000, 0, NULL);
    msleep(50);
    rcheck("delete with its signal pending", rawsys(SYS_timer_delete, d, 0, 0, 0, 0, 0));
    sigpending(&pend);
    out("still pending: %s", yesno(sigismember(&pend, SIGUSR1)));
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    out("delivered after delete: %s %s", yesno(got == 1), signame(signo));
    return 0;
}
