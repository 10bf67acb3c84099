/* What the futex tests share: the operation numbers (<linux/futex.h>,
 * which musl's headers do not carry), the raw call, and printing a
 * result as a count or an errno name. */
#ifndef CONTRACTS_FUTEX_H
#define CONTRACTS_FUTEX_H

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_32 2
#define FUTEX2_PRIVATE 128

static long fx(volatile void *uaddr, int op, int val, const void *ts, volatile void *uaddr2, int val3) __attribute__((unused));
static long fx(volatile void *uaddr, int op, int val, const void *ts, volatile void *uaddr2, int val3)
{
    return rawsys(SYS_futex, (long)uaddr, op, val, (long)ts, (long)uaddr2, val3);
}

static void res(const char *label, long r) __attribute__((unused));
static void res(const char *label, long r)
{
    if (r < 0)
        out("%s: %s", label, errname((int)-r));
    else
        out("%s: %ld", label, r);
}

#endif
