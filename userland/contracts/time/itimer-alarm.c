/* alarm() and setitimer(ITIMER_REAL) deliver SIGALRM after the interval;
 * alarm returns the seconds left on the previous alarm; getitimer reports
 * a running timer; pause() returns EINTR after the handler. */
#include "common.h"
#include <sys/time.h>

static volatile int alarms;
static void on_alarm(int s) { (void)s; alarms++; }

int main(void)
{
    signal(SIGALRM, on_alarm);
    out("alarm(5) with none pending: %u", alarm(5));
    /* The start is read before alarm(1) arms the timer: read after, a
     * host that deschedules the guest in between (TCG on a busy machine)
     * made the wait look short on Kevlar in CI. */
    long long t0 = now_ns(CLOCK_MONOTONIC);
    unsigned left = alarm(1);
    out("alarm(1) returns previous remaining (4 or 5): %s", yesno(left == 5 || left == 4));
    errno = 0;
    int r = pause();
    out("pause: %d %s", r, errname(errno));
    out("alarms: %d, after >= 0.9 s: %s", alarms, yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 900000000LL));
    out("alarm(0) when none pending: %u", alarm(0));

    struct itimerval it = {{0, 20000}, {0, 20000}}, cur;
    check("setitimer periodic 20 ms", setitimer(ITIMER_REAL, &it, NULL));
    getitimer(ITIMER_REAL, &cur);
    out("getitimer: interval=%ld us, value in (0, 20 ms]: %s", (long)cur.it_interval.tv_usec,
        yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec > 0 && cur.it_value.tv_usec <= 20000));
    while (alarms < 4)
        pause();
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, &cur);
    out("periodic timer fired at least 3 more times: %s", yesno(alarms >= 4));
    getitimer(ITIMER_REAL, &cur);
    out("disarmed: %s", yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0));
    check("setitimer bad which", setitimer(42, &it, NULL));
    it.it_value.tv_usec = 2000000;
    check("setitimer bad usec", setitimer(ITIMER_REAL, &it, NULL));
    return 0;
}
