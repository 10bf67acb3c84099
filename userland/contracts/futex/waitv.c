/* futex_waitv(2): waits on several futexes at once and returns the index
 * of the one woken; EAGAIN when any word differs; absolute timeouts on
 * CLOCK_MONOTONIC or CLOCK_REALTIME; EINVAL for bad flags, counts and
 * clocks. */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

struct waitv {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
};

static long waitv(struct waitv *v, unsigned n, unsigned flags, struct timespec *ts, int clock)
{
    return rawsys(SYS_futex_waitv, (long)v, n, flags, (long)ts, clock, 0);
}

static struct timespec after(clockid_t c, long ms)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    ts.tv_nsec += ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

int main(void)
{
    volatile int *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    struct waitv v[3] = {
        {0, (uintptr_t)(w + 0), FUTEX_32, 0},
        {0, (uintptr_t)(w + 1), FUTEX_32, 0},
        {0, (uintptr_t)(w + 2), FUTEX_32 | FUTEX2_PRIVATE, 0},
    };
    struct timespec t = after(CLOCK_MONOTONIC, 30);
    res("all equal, monotonic timeout", waitv(v, 3, 0, &t, CLOCK_MONOTONIC));
    t = after(CLOCK_REALTIME, 30);
    res("all equal, realtime timeout", waitv(v, 3, 0, &t, CLOCK_REALTIME));
    w[1] = 1;
    res("second word differs", waitv(v, 3, 0, NULL, 0));
    w[1] = 0;
    v[0].val = 1ULL << 32;
    t = after(CLOCK_MONOTONIC, 30);
    res("value above 32 bits (only the low half compared)", waitv(v, 3, 0, &t, CLOCK_MONOTONIC));
    v[0].val = 0;

    res("flags 1", waitv(v, 3, 1, NULL, 0));
    res("count 0", waitv(v, 0, 0, NULL, 0));
    res("count 129", waitv(v, 129, 0, NULL, 0));
    res("NULL vector", waitv(NULL, 1, 0, NULL, 0));
    t = after(CLOCK_MONOTONIC, 30);
    res("clock CLOCK_BOOTTIME", waitv(v, 3, 0, &t, CLOCK_BOOTTIME));
    v[1].flags = 0;
    res("no size flag", waitv(v, 3, 0, NULL, 0));
    v[1].flags = FUTEX_32 | 0x40;
    res("unknown flag", waitv(v, 3, 0, NULL, 0));
    v[1].flags = FUTEX_32;
    v[1].reserved = 1;
    res("reserved field set", waitv(v, 3, 0, NULL, 0));
    v[1].reserved = 0;
    v[1].uaddr += 1;
    res("misaligned word", waitv(v, 3, 0, NULL, 0));
    v[1].uaddr -= 1;
    res("bad vector pointer", waitv((struct waitv *)8, 1, 0, NULL, 0));

    /* A child waits on words 0 and 1; the parent wakes word 1. */
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec deadline = after(CLOCK_MONOTONIC, 5000);
        long r = waitv(v, 2, 0, &deadline, CLOCK_MONOTONIC);
        _exit(r >= 0 ? (int)r : 100 + (int)-r);
    }
    long woken = 0;
    for (int i = 0; i < 5000 && !woken; i++) {
        woken = rawsys(SYS_futex, (long)(w + 1), FUTEX_WAKE, 1, 0, 0, 0);
        if (!woken)
            usleep(1000);
    }
    res("wake word 1", woken);
    int st;
    waitpid(pid, &st, 0);
    out("child's futex_waitv returned: %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
