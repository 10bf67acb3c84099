/* times() and getrusage(): CPU time accumulates for work done, children's
 * times show up after they are waited for, and the defined fields hold. */
#include "common.h"
#include <sys/resource.h>
#include <sys/times.h>

static volatile unsigned long sink;

static void spin_ms(long ms)
{
    long long end = now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
    while (now_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

static long tv_us(struct timeval t) { return t.tv_sec * 1000000L + t.tv_usec; }

int main(void)
{
    out("CLK_TCK: %ld", sysconf(_SC_CLK_TCK));
    struct tms t0, t1;
    clock_t c0 = times(&t0);
    spin_ms(300);
    clock_t c1 = times(&t1);
    out("times() elapsed advanced: %s", yesno(c1 > c0));
    out("user+sys ticks advanced: %s", yesno(t1.tms_utime + t1.tms_stime > t0.tms_utime + t0.tms_stime));
    out("no child time yet: %s", yesno(t1.tms_cutime == 0 && t1.tms_cstime == 0));

    struct rusage ru;
    check("getrusage(SELF)", getrusage(RUSAGE_SELF, &ru));
    out("self cpu time >= 100 ms: %s", yesno(tv_us(ru.ru_utime) + tv_us(ru.ru_stime) >= 100000));
    out("usec fields in range: %s", yesno(ru.ru_utime.tv_usec < 1000000 && ru.ru_stime.tv_usec < 1000000));
    out("maxrss positive: %s", yesno(ru.ru_maxrss > 0));
    struct rusage rc;
    getrusage(RUSAGE_CHILDREN, &rc);
    out("children cpu before any child: %ld", tv_us(rc.ru_utime) + tv_us(rc.ru_stime));

    pid_t pid = fork();
    if (pid == 0) {
        spin_ms(300);
        _exit(0);
    }
    struct tms t2;
    struct rusage cru;
    msleep(10);
    getrusage(RUSAGE_CHILDREN, &cru);
    out("running child not yet counted: %s", yesno(tv_us(cru.ru_utime) + tv_us(cru.ru_stime) == 0));
    int st;
    struct rusage w4;
    wait4(pid, &st, 0, &w4);
    out("wait4 rusage of the child >= 100 ms: %s", yesno(tv_us(w4.ru_utime) + tv_us(w4.ru_stime) >= 100000));
    getrusage(RUSAGE_CHILDREN, &cru);
    out("RUSAGE_CHILDREN after wait >= 100 ms: %s", yesno(tv_us(cru.ru_utime) + tv_us(cru.ru_stime) >= 100000));
    times(&t2);
    out("times() child ticks after wait: %s", yesno(t2.tms_cutime + t2.tms_cstime > 0));
    check("getrusage(THREAD)", getrusage(RUSAGE_THREAD, &ru));
    check("getrusage(bad who)", getrusage(42, &ru));
    return 0;
}
