/* gettimeofday and time agree with CLOCK_REALTIME; tv_usec is in range;
 * timezone arguments are accepted. */
#include "common.h"
#include <sys/time.h>

int main(void)
{
    struct timeval tv;
    check("gettimeofday", gettimeofday(&tv, NULL));
    out("tv_usec in range: %s", yesno(tv.tv_usec >= 0 && tv.tv_usec < 1000000));
    time_t t = time(NULL);
    out("time() within 2 s of gettimeofday: %s", yesno(t - tv.tv_sec <= 2 && tv.tv_sec - t <= 2));
    time_t t2;
    time_t t3 = time(&t2);
    out("time(&t) stores and returns the same: %s", yesno(t2 == t3));
    long long rt = now_ns(CLOCK_REALTIME) / 1000000000LL;
    out("CLOCK_REALTIME within 2 s: %s", yesno(rt - t3 <= 2 && t3 - rt <= 2));
    struct timeval a, b;
    gettimeofday(&a, NULL);
    msleep(50);
    gettimeofday(&b, NULL);
    long long d = (b.tv_sec - a.tv_sec) * 1000000LL + (b.tv_usec - a.tv_usec);
    out("advanced >= 50 ms over a 50 ms sleep: %s", yesno(d >= 50000));
    struct timezone tz;
    check("gettimeofday with timezone", syscall(SYS_gettimeofday, &tv, &tz));
    check("raw time(NULL)", syscall(SYS_time, NULL));
    check("settimeofday bad usec", settimeofday(&(struct timeval){0, 2000000}, NULL));
    return 0;
}
