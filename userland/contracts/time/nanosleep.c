/* nanosleep sleeps at least as long as asked (measured on CLOCK_MONOTONIC)
 * and rejects invalid timespecs. */
#include "common.h"

int main(void)
{
    struct timespec req = {0, 30 * 1000000L}, rem = {7, 7};
    long long t0 = now_ns(CLOCK_MONOTONIC);
    check("nanosleep 30 ms", nanosleep(&req, &rem));
    long long dt = now_ns(CLOCK_MONOTONIC) - t0;
    out("slept at least 30 ms: %s", yesno(dt >= 30000000LL));
    out("slept less than 5 s: %s", yesno(dt < 5000000000LL));
    req.tv_sec = 0;
    req.tv_nsec = 0;
    check("nanosleep 0", nanosleep(&req, NULL));
    req.tv_nsec = 1000000000L;
    check("tv_nsec = 1e9", nanosleep(&req, NULL));
    req.tv_nsec = -1;
    check("tv_nsec = -1", nanosleep(&req, NULL));
    req.tv_sec = -1;
    req.tv_nsec = 0;
    check("tv_sec = -1", nanosleep(&req, NULL));
    check("NULL request", syscall(SYS_nanosleep, NULL, NULL));
    return 0;
}
