/* ITIMER_VIRTUAL and ITIMER_PROF fire while the process uses CPU time
 * (SIGVTALRM, SIGPROF), not while it sleeps; periodic ones fire again;
 * getitimer reads them back; a fork child has none. */
#include "common.h"
#include <sys/time.h>

static volatile int vt, prof;
static volatile unsigned long sink;
static void on_vt(int s) { (void)s; vt++; }
static void on_prof(int s) { (void)s; prof++; }

static void spin_until(volatile int *counter, int n, long max_ms)
{
    long long end = now_ns(CLOCK_MONOTONIC) + max_ms * 1000000LL;
    while (*counter < n && now_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

int main(void)
{
    signal(SIGVTALRM, on_vt);
    signal(SIGPROF, on_prof);
    struct itimerval it = {{0, 0}, {0, 50000}}, cur;
    check("ITIMER_VIRTUAL 50 ms", setitimer(ITIMER_VIRTUAL, &it, NULL));
    check("ITIMER_PROF 50 ms", setitimer(ITIMER_PROF, &it, NULL));
    getitimer(ITIMER_VIRTUAL, &cur);
    out("virtual reads back armed: %s", yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec > 0));
    pid_t pid = fork();
    if (pid == 0) {
        getitimer(ITIMER_VIRTUAL, &cur);
        out("child: virtual disarmed: %s", yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0));
        getitimer(ITIMER_PROF, &cur);
        out("child: prof disarmed: %s", yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0));
        _exit(0);
    }
    reap("child", pid);
    msleep(300);
    out("fired while sleeping: virtual %s, prof %s", yesno(vt), yesno(prof));
    spin_until(&vt, 1, 30000);
    spin_until(&prof, 1, 30000);
    out("fired while spinning: SIGVTALRM %d, SIGPROF %d", vt, prof);
    getitimer(ITIMER_VIRTUAL, &cur);
    out("one-shot virtual now disarmed: %s", yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0));

    struct itimerval per = {{0, 20000}, {0, 20000}};
    check("periodic ITIMER_VIRTUAL 20 ms", setitimer(ITIMER_VIRTUAL, &per, NULL));
    check("periodic ITIMER_PROF 20 ms", setitimer(ITIMER_PROF, &per, NULL));
    spin_until(&vt, 4, 30000);
    spin_until(&prof, 4, 30000);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_VIRTUAL, &off, &cur);
    out("virtual fired again: %s; old interval %ld us", yesno(vt >= 4), (long)cur.it_interval.tv_usec);
    setitimer(ITIMER_PROF, &off, &cur);
    out("prof fired again: %s; old interval %ld us", yesno(prof >= 4), (long)cur.it_interval.tv_usec);
    getitimer(ITIMER_PROF, &cur);
    out("disarmed: %s", yesno(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0 && cur.it_interval.tv_usec == 0));
    /* A zero value with an interval: Linux keeps the interval. */
    struct itimerval ivonly = {{0, 30000}, {0, 0}};
    setitimer(ITIMER_VIRTUAL, &ivonly, NULL);
    getitimer(ITIMER_VIRTUAL, &cur);
    out("value 0 with interval: value %ld us, interval %ld us", (long)cur.it_value.tv_usec, (long)cur.it_interval.tv_usec);
    return 0;
}
