/* clock_nanosleep: relative and TIMER_ABSTIME sleeps on MONOTONIC and
 * REALTIME reach their deadline; an absolute time in the past returns at
 * once; bad clocks and flags fail. Errors are returned, not in errno. */
#include "common.h"

int main(void)
{
    struct timespec rel = {0, 20 * 1000000L};
    long long t0 = now_ns(CLOCK_MONOTONIC);
    check_rc("relative MONOTONIC 20 ms", clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL));
    out("advanced >= 20 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 20000000LL));

    long long target = now_ns(CLOCK_MONOTONIC) + 40000000LL;
    struct timespec abs = {target / 1000000000LL, target % 1000000000LL};
    check_rc("absolute MONOTONIC +40 ms", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL));
    out("clock reached the deadline: %s", yesno(now_ns(CLOCK_MONOTONIC) >= target));

    long long rt = now_ns(CLOCK_REALTIME) + 30000000LL;
    struct timespec rabs = {rt / 1000000000LL, rt % 1000000000LL};
    check_rc("absolute REALTIME +30 ms", clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &rabs, NULL));
    out("realtime reached the deadline: %s", yesno(now_ns(CLOCK_REALTIME) >= rt));

    struct timespec past = {1, 0};
    t0 = now_ns(CLOCK_MONOTONIC);
    check_rc("absolute time in the past", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL));
    out("returned within 1 s: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 < 1000000000LL));
    check_rc("BOOTTIME relative", clock_nanosleep(CLOCK_BOOTTIME, 0, &rel, NULL));

    struct timespec bad = {0, 2000000000L};
    check_rc("bad tv_nsec", clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL));
    check_rc("bad clock id", clock_nanosleep(1234, 0, &rel, NULL));
    check_rc("THREAD_CPUTIME clock", clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &rel, NULL));
    /* Raw syscall with unknown flags (libc would pass them through). */
    long r = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0x100, &rel, NULL);
    out("unknown flags: %s", r == 0 ? "ok" : errname(errno));
    return 0;
}
