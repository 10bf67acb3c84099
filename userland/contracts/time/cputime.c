/* CPU-time clocks: PROCESS_CPUTIME and THREAD_CPUTIME advance while
 * spinning and barely while sleeping. */
#include "common.h"

static volatile unsigned long sink;

static void spin_ms(long ms)
{
    long long end = now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
    while (now_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

int main(void)
{
    long long p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    spin_ms(200);
    long long p1 = now_ns(CLOCK_PROCESS_CPUTIME_ID), t1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    out("process cpu time advanced >= 50 ms while spinning 200 ms: %s", yesno(p1 - p0 >= 50000000LL));
    out("thread cpu time advanced >= 50 ms: %s", yesno(t1 - t0 >= 50000000LL));
    msleep(200);
    long long p2 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    out("process cpu time advanced < 100 ms while sleeping 200 ms: %s", yesno(p2 - p1 < 100000000LL));
    clockid_t c;
    check("clock_getcpuclockid(0)", clock_getcpuclockid(0, &c) == 0 ? 0 : -1);
    out("that clock reads: %s", now_ns(c) > 0 ? "positive" : "zero");
    return 0;
}
