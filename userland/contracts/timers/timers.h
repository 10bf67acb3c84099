/* Raw POSIX timer calls for the timers/ tests: musl's timer_create wraps
 * SIGEV_THREAD in its own thread and its timer_t is not the kernel's id. */
#ifndef TIMERS_H
#define TIMERS_H
#include "../common.h"

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif
#ifndef CLOCK_REALTIME_ALARM
#define CLOCK_REALTIME_ALARM 8
#endif
#ifndef CLOCK_BOOTTIME_ALARM
#define CLOCK_BOOTTIME_ALARM 9
#endif
#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

/* A CPU-time clock id (clock_getcpuclockid's encoding): kind 2 is the
 * scheduler clock, 6 a thread's. */
#define CPUCLOCK(pid, kind) ((long)(int)((~(unsigned)(pid)) << 3 | (kind)))

/* The kernel's struct sigevent (64 bytes). */
struct ksigevent {
    union { int sival_int; void *sival_ptr; } value;
    int signo;
    int notify;
    int tid;
    int pad[11];
};

struct kitimerspec { struct timespec interval, value; };

static long tcreate(long clock, struct ksigevent *ev, int *id) __attribute__((unused));
static long tcreate(long clock, struct ksigevent *ev, int *id)
{
    return rawsys(SYS_timer_create, clock, (long)ev, (long)id, 0, 0, 0);
}
static long tset(int id, int flags, long long value_ns, long long interval_ns, struct kitimerspec *old) __attribute__((unused));
static long tset(int id, int flags, long long value_ns, long long interval_ns, struct kitimerspec *old)
{
    struct kitimerspec its = {{interval_ns / 1000000000, interval_ns % 1000000000}, {value_ns / 1000000000, value_ns % 1000000000}};
    return rawsys(SYS_timer_settime, id, flags, (long)&its, (long)old, 0, 0);
}
static long tget(int id, struct kitimerspec *cur) __attribute__((unused));
static long tget(int id, struct kitimerspec *cur)
{
    return rawsys(SYS_timer_gettime, id, (long)cur, 0, 0, 0, 0);
}
static long long ts_ns(struct timespec t) __attribute__((unused));
static long long ts_ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }
#endif
