/* Timers on CPU-time clocks: CLOCK_PROCESS_CPUTIME_ID and
 * CLOCK_THREAD_CPUTIME_ID fire only once the CPU time is used (not while
 * sleeping), and a process clock from clock_getcpuclockid. */
#include "timers.h"

static volatile int got;
static volatile unsigned long sink;
static void handler(int s) { (void)s; got++; }

static long long spin_until_signal(long max_ms)
{
    long long end = now_ns(CLOCK_MONOTONIC) + max_ms * 1000000LL;
    while (!got && now_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
    return now_ns(CLOCK_PROCESS_CPUTIME_ID);
}

int main(void)
{
    signal(SIGUSR1, handler);
    struct ksigevent ev = {0};
    ev.notify = SIGEV_SIGNAL;
    ev.signo = SIGUSR1;
    clockid_t clocks[3] = {CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, 0};
    const char *names[3] = {"PROCESS_CPUTIME", "THREAD_CPUTIME", "getcpuclockid(getpid())"};
    clock_getcpuclockid(getpid(), &clocks[2]);
    for (int i = 0; i < 3; i++) {
        int id;
        got = 0;
        rcheck(names[i], tcreate(clocks[i], &ev, &id));
        long long start = now_ns(clocks[i]);
        rcheck("  arm 100 ms of CPU time", tset(id, 0, 100000000, 0, NULL));
        msleep(200);
        out("  fired while sleeping: %s", yesno(got));
        spin_until_signal(30000);
        long long used = now_ns(clocks[i]) - start;
        out("  fired while spinning: %s, after >= 100 ms of CPU: %s", yesno(got == 1), yesno(used >= 100000000));
        struct kitimerspec cur;
        tget(id, &cur);
        out("  value after: %lld", ts_ns(cur.value));
        /* Absolute: a CPU time already passed fires at once. */
        got = 0;
        rcheck("  arm absolute at 1 ns", tset(id, TIMER_ABSTIME, 1, 0, NULL));
        spin_until_signal(30000);
        out("  fired: %s", yesno(got == 1));
        rawsys(SYS_timer_delete, id, 0, 0, 0, 0, 0);
    }
    return 0;
}
