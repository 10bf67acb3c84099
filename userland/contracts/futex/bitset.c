/* FUTEX_WAIT_BITSET / FUTEX_WAKE_BITSET: a wake reaches only waiters whose
 * bitset shares a bit with its own; FUTEX_WAKE matches every bitset; the
 * count limits how many are woken, oldest first. */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>

static volatile int *w;

/* Waits until n waiters sit on w[0], counting them by moving them to w[1]
 * and back. */
static void until_queued(int n)
{
    long seen = 0;
    for (int i = 0; i < 5000 && seen < n; i++) {
        seen += fx(w, FUTEX_REQUEUE, 0, (void *)100L, w + 1, 0);
        if (seen < n)
            usleep(1000);
    }
    fx(w + 1, FUTEX_REQUEUE, 0, (void *)100L, w, 0);
    out("queued: %ld", seen);
}

static pid_t waiter(int bitset, int tag)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += 5;
        long r = fx(w, FUTEX_WAIT_BITSET, 0, &deadline, NULL, bitset);
        w[2 + tag] = r == 0 ? 1 : 2;
        _exit(0);
    }
    return pid;
}

int main(void)
{
    w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t p1 = waiter(0x1, 0);
    pid_t p2 = waiter(0x2, 1);
    pid_t p3 = waiter(0x3, 2);
    until_queued(3);
    res("wake_bitset 0x4", fx(w, FUTEX_WAKE_BITSET, 10, NULL, NULL, 0x4));
    res("wake_bitset 0x2 count 1", fx(w, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0x2));
    res("wake_bitset 0x2", fx(w, FUTEX_WAKE_BITSET, 10, NULL, NULL, 0x2));
    waitpid(p2, NULL, 0);
    waitpid(p3, NULL, 0);
    out("bitset 0x2 woken: %s, bitset 0x3 woken: %s", yesno(w[3] == 1), yesno(w[4] == 1));
    out("bitset 0x1 still waiting: %s", yesno(w[2] == 0));
    res("wake count 0 (wakes one)", fx(w, FUTEX_WAKE, 0, NULL, NULL, 0));
    waitpid(p1, NULL, 0);
    out("bitset 0x1 woken: %s", yesno(w[2] == 1));
    return 0;
}
