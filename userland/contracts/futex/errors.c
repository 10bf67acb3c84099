/* futex(2) without waiters to wake: EAGAIN when the word differs,
 * ETIMEDOUT for relative (FUTEX_WAIT) and absolute (FUTEX_WAIT_BITSET,
 * monotonic or FUTEX_CLOCK_REALTIME) timeouts, and the argument errors:
 * EINVAL (misaligned word, bad timespec, zero bitset, negative requeue
 * counts), EFAULT (bad word or timeout pointer), ENOSYS (unknown
 * commands, FUTEX_CLOCK_REALTIME with FUTEX_WAIT). */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>
#include <sys/time.h>

static void on_alarm(int sig)
{
    (void)sig;
}

static struct timespec abs_after(clockid_t c, long ms)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    ts.tv_nsec += (ms % 1000) * 1000000L;
    ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

int main(void)
{
    static int words[4] __attribute__((aligned(16))) = {5, 0, 0, 0};
    volatile int *w = words;
    struct timespec rel = {0, 50 * 1000000L};

    res("wait on a different value", fx(w, FUTEX_WAIT, 4, NULL, NULL, 0));
    res("wait private on a different value", fx(w, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 4, NULL, NULL, 0));

    long long t0 = now_ns(CLOCK_MONOTONIC);
    res("wait 50 ms", fx(w, FUTEX_WAIT, 5, &rel, NULL, 0));
    out("waited at least 50 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000LL));

    t0 = now_ns(CLOCK_MONOTONIC);
    struct timespec deadline = abs_after(CLOCK_MONOTONIC, 50);
    res("wait_bitset until monotonic +50 ms", fx(w, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 5, &deadline, NULL, -1));
    out("waited at least 50 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000LL));

    t0 = now_ns(CLOCK_MONOTONIC);
    deadline = abs_after(CLOCK_REALTIME, 50);
    res("wait_bitset until realtime +50 ms", fx(w, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 5, &deadline, NULL, -1));
    out("waited at least 40 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 40000000LL));

    struct timespec past = {1, 0};
    res("wait_bitset with a past deadline", fx(w, FUTEX_WAIT_BITSET, 5, &past, NULL, -1));
    struct timespec zero = {0, 0};
    res("wait with a zero timeout", fx(w, FUTEX_WAIT, 5, &zero, NULL, 0));

    res("wake without waiters", fx(w, FUTEX_WAKE, 1, NULL, NULL, 0));
    res("wake private without waiters", fx(w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 10, NULL, NULL, 0));
    res("wake_bitset without waiters", fx(w, FUTEX_WAKE_BITSET, 1, NULL, NULL, 1));

    /* Errors. */
    res("misaligned wait", fx((char *)w + 1, FUTEX_WAIT, 5, NULL, NULL, 0));
    res("misaligned wake", fx((char *)w + 2, FUTEX_WAKE, 1, NULL, NULL, 0));
    struct timespec bad = {0, 1000000000L};
    res("timeout nsec 1e9", fx(w, FUTEX_WAIT, 5, &bad, NULL, 0));
    struct timespec negative = {-1, 0};
    res("negative timeout", fx(w, FUTEX_WAIT, 5, &negative, NULL, 0));
    res("timeout at a bad pointer", fx(w, FUTEX_WAIT, 5, (void *)16, NULL, 0));
    res("wait_bitset with bitset 0", fx(w, FUTEX_WAIT_BITSET, 5, NULL, NULL, 0));
    res("wake_bitset with bitset 0", fx(w, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0));
    res("wait on NULL", fx(NULL, FUTEX_WAIT, 0, NULL, NULL, 0));
    res("wait private on NULL", fx(NULL, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0));
    res("wait on a kernel address", fx((void *)0xffffffff80000000UL, FUTEX_WAIT, 0, NULL, NULL, 0));

    void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(gone, 4096);
    res("wake private on unmapped memory", fx(gone, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0));
    res("wake shared on unmapped memory", fx(gone, FUTEX_WAKE, 1, NULL, NULL, 0));
    res("wait on unmapped memory", fx(gone, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0));

    res("FUTEX_WAIT with FUTEX_CLOCK_REALTIME", fx(w, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 4, NULL, NULL, 0));
    res("FUTEX_WAKE with FUTEX_CLOCK_REALTIME", fx(w, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0));
    res("unknown command 99", fx(w, 99, 0, NULL, NULL, 0));
    res("FUTEX_FD (removed)", fx(w, 2, 0, NULL, NULL, 0));
    res("requeue with nr_wake -1", fx(w, FUTEX_REQUEUE, -1, (void *)1, w + 1, 0));
    res("requeue with nr_requeue -1", fx(w, FUTEX_REQUEUE, 1, (void *)-1L, w + 1, 0));
    res("requeue misaligned target", fx(w, FUTEX_REQUEUE, 1, (void *)1, (char *)(w + 1) + 1, 0));
    res("requeue without waiters", fx(w, FUTEX_REQUEUE, 1, (void *)1, w + 1, 0));

    /* A signal ends a wait without timeout with EINTR when its handler has
     * no SA_RESTART, and one with a timeout even with SA_RESTART. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 0}, {0, 30000}};
    setitimer(ITIMER_REAL, &it, NULL);
    res("wait interrupted by a handler", fx(w, FUTEX_WAIT, 5, NULL, NULL, 0));
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct timespec long_wait = {3, 0};
    setitimer(ITIMER_REAL, &it, NULL);
    t0 = now_ns(CLOCK_MONOTONIC);
    res("timed wait interrupted by an SA_RESTART handler", fx(w, FUTEX_WAIT, 5, &long_wait, NULL, 0));
    out("ended early: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 < 2000000000LL));
    out("word unchanged: %d", words[0]);
    return 0;
}
