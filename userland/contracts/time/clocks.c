/* clock_gettime: REALTIME, MONOTONIC, BOOTTIME and the coarse/raw variants
 * never go backwards over many reads, advance with time, have sane
 * resolutions, and an invalid clock id is EINVAL. */
#include "common.h"

static int monotonic_over(clockid_t c, int n)
{
    struct timespec prev, cur;
    clock_gettime(c, &prev);
    for (int i = 0; i < n; i++) {
        clock_gettime(c, &cur);
        if (cur.tv_nsec < 0 || cur.tv_nsec >= 1000000000L)
            return 0;
        if (cur.tv_sec < prev.tv_sec || (cur.tv_sec == prev.tv_sec && cur.tv_nsec < prev.tv_nsec))
            return 0;
        prev = cur;
    }
    return 1;
}

int main(void)
{
    struct { clockid_t id; const char *name; } clocks[] = {
        {CLOCK_REALTIME, "REALTIME"}, {CLOCK_MONOTONIC, "MONOTONIC"},
        {CLOCK_BOOTTIME, "BOOTTIME"}, {CLOCK_MONOTONIC_RAW, "MONOTONIC_RAW"},
        {CLOCK_REALTIME_COARSE, "REALTIME_COARSE"}, {CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE"},
    };
    for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        long long a = now_ns(clocks[i].id);
        int mono = monotonic_over(clocks[i].id, 20000);
        msleep(30);
        long long b = now_ns(clocks[i].id);
        struct timespec res;
        int r = clock_getres(clocks[i].id, &res);
        out("%s: never backwards=%s advanced over a 30 ms sleep=%s res ok=%s", clocks[i].name,
            yesno(mono), yesno(b - a >= 20000000LL),
            yesno(r == 0 && res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec <= 10000000L));
    }
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    out("MONOTONIC resolution: %ld ns", res.tv_nsec);
    long long m = now_ns(CLOCK_MONOTONIC), bt = now_ns(CLOCK_BOOTTIME);
    out("BOOTTIME >= MONOTONIC: %s", yesno(bt >= m));
    out("REALTIME after 2020: %s", yesno(now_ns(CLOCK_REALTIME) > 1577836800LL * 1000000000LL));
    struct timespec ts;
    errno = 0;
    check("clock_gettime(bad id)", clock_gettime(1234, &ts));
    check("clock_getres(bad id)", clock_getres(1234, &res));
    check("clock_getres(MONOTONIC, NULL)", clock_getres(CLOCK_MONOTONIC, NULL));
    check("clock_settime(MONOTONIC)", clock_settime(CLOCK_MONOTONIC, &ts));
    return 0;
}
