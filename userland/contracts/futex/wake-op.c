/* FUTEX_WAKE_OP: the operation on the second word (set, add, or, andn,
 * xor, with FUTEX_OP_OPARG_SHIFT) happens atomically and always; waiters
 * of the first word are woken, those of the second only when the old
 * value passes the comparison. Unknown operations or comparisons give
 * ENOSYS. */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>

#define OP(op, oparg, cmp, cmparg) \
    ((int)((((unsigned)(op) & 0xf) << 28) | (((cmp) & 0xf) << 24) | (((oparg) & 0xfff) << 12) | ((cmparg) & 0xfff)))
#define SET 0
#define ADD 1
#define OR 2
#define ANDN 3
#define XOR 4
#define SHIFT 8
#define EQ 0
#define NE 1
#define LT 2
#define LE 3
#define GT 4
#define GE 5

static volatile int *w;

static pid_t waiter(int index)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec five = {5, 0};
        long r = fx(w + index, FUTEX_WAIT, w[index], &five, NULL, 0);
        _exit(r == 0 ? 0 : 1);
    }
    return pid;
}

/* Waits until a waiter sits on w[index] (moving it to w[10] and back). */
static void until_queued(int index)
{
    long seen = 0;
    for (int i = 0; i < 5000 && !seen; i++) {
        seen = fx(w + index, FUTEX_REQUEUE, 0, (void *)1L, w + 10, 0);
        if (!seen)
            usleep(1000);
    }
    fx(w + 10, FUTEX_REQUEUE, 0, (void *)1L, w + index, 0);
}

int main(void)
{
    w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile int *a = w, *b = w + 1;

    /* The operations, without waiters. */
    *b = 5;
    res("set 7 if old == 5", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(SET, 7, EQ, 5)));
    out("b: %d", *b);
    res("add -3", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(ADD, -3, EQ, 0)));
    out("b: %d", *b);
    res("or 0x30", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(OR, 0x30, EQ, 0)));
    out("b: %#x", *b);
    res("andn 0x10", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(ANDN, 0x10, EQ, 0)));
    out("b: %#x", *b);
    res("xor 0xff", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(XOR, 0xff, EQ, 0)));
    out("b: %#x", *b);
    res("set 1<<4 (shift)", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(SET | SHIFT, 4, EQ, 0)));
    out("b: %#x", *b);
    res("or 1<<31 (shift)", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(OR | SHIFT, 31, EQ, 0)));
    out("b: %#x", (unsigned)*b);
    res("unknown op 5", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(5, 1, EQ, 0)));
    out("b: %#x", (unsigned)*b);
    *b = 1;
    res("unknown comparison 6 (the op still runs)", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(ADD, 1, 6, 0)));
    out("b: %d", *b);
    res("misaligned second word", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, (char *)b + 1, OP(ADD, 1, EQ, 0)));
    res("second word unmapped", fx(a, FUTEX_WAKE_OP, 1, (void *)1L, (int *)8, OP(ADD, 1, EQ, 0)));

    /* Read-only second word: the write fails. */
    int *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    res("read-only second word", fx(a, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, (void *)1L, ro, OP(ADD, 1, EQ, 0)));

    /* A copy-on-write page: the operation copies it first, so the other
     * process keeps its value. */
    static int cow = 5;
    pid_t child = fork();
    if (child == 0) {
        long r = fx(a, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, (void *)1L, &cow, OP(SET, 9, EQ, 0));
        _exit(r == 0 ? cow : 100);
    }
    int cst;
    waitpid(child, &cst, 0);
    out("child's copy-on-write word after set 9: %d, parent's: %d", WEXITSTATUS(cst), cow);

    /* The comparisons, on the old value 10 against 10. */
    const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    for (int cmp = EQ; cmp <= GE; cmp++) {
        *b = 10;
        pid_t pa = waiter(0), pb = waiter(1);
        until_queued(0);
        until_queued(1);
        char label[64];
        snprintf(label, sizeof label, "%s: woken", names[cmp]);
        res(label, fx(a, FUTEX_WAKE_OP, 1, (void *)1L, b, OP(ADD, 1, cmp, 10)));
        int st;
        waitpid(pa, &st, 0);
        /* The second waiter, if not woken, is woken now (its value may
         * have changed, so wake rather than compare). */
        fx(b, FUTEX_WAKE, 1, NULL, NULL, 0);
        waitpid(pb, &st, 0);
    }
    return 0;
}
