/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE move waiters between futexes
 * without waking them; the counts returned are woken + moved. Three
 * children wait on word A; the parent counts them by moving them to B. */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>

int main(void)
{
    volatile int *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile int *a = w, *b = w + 1, *c = w + 2;
    *a = 1;
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            struct timespec five = {5, 0};
            long r = fx(a, FUTEX_WAIT, 1, &five, NULL, 0);
            _exit(r == 0 ? 0 : 1);
        }
    }
    /* Move every waiter from A to B as it arrives, until all three have. */
    long moved = 0;
    for (int i = 0; i < 5000 && moved < 3; i++) {
        long r = fx(a, FUTEX_REQUEUE, 0, (void *)100L, b, 0);
        if (r < 0) {
            res("requeue", r);
            break;
        }
        moved += r;
        if (moved < 3)
            usleep(1000);
    }
    out("moved to B: %ld", moved);
    res("wake A (nobody left)", fx(a, FUTEX_WAKE, 10, NULL, NULL, 0));
    res("cmp_requeue B->C expecting 1 (B holds 0)", fx(b, FUTEX_CMP_REQUEUE, 1, (void *)1L, c, 1));
    res("cmp_requeue B->C wake 0 move 0", fx(b, FUTEX_CMP_REQUEUE, 0, (void *)0L, c, 0));
    res("cmp_requeue B->C wake 1 move 1", fx(b, FUTEX_CMP_REQUEUE, 1, (void *)1L, c, 0));
    res("wake B", fx(b, FUTEX_WAKE, 10, NULL, NULL, 0));
    res("wake C", fx(c, FUTEX_WAKE, 10, NULL, NULL, 0));
    int woken = 0;
    for (int i = 0; i < 3; i++) {
        int st;
        waitpid(kids[i], &st, 0);
        woken += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    out("children woken: %d", woken);
    return 0;
}
