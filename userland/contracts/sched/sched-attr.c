/* sched_setattr/sched_getattr: the struct's size is negotiated (0 is the
 * first version, too small or too big is E2BIG with the kernel's size
 * written back, nonzero bytes past the struct E2BIG); the policy and its
 * parameters round-trip (nice for SCHED_OTHER/BATCH/IDLE, priority for
 * FIFO/RR); bad policies, priorities, flags and deadline parameters are
 * EINVAL; utilization clamps EOPNOTSUPP; an unprivileged user may not
 * raise priorities or use SCHED_DEADLINE (EPERM). */
#include "common.h"
#include <sched.h>

#ifndef SYS_sched_setattr
#define SYS_sched_setattr 314
#define SYS_sched_getattr 315
#endif

struct attr {
    unsigned size, policy;
    unsigned long long flags;
    int nice;
    unsigned priority;
    unsigned long long runtime, deadline, period;
    unsigned util_min, util_max;
};

static long set(struct attr *a) { return syscall(SYS_sched_setattr, 0, a, 0); }

static void show_attr(const char *label)
{
    struct attr a;
    memset(&a, 0xff, sizeof a);
    long r = syscall(SYS_sched_getattr, 0, &a, sizeof a, 0);
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: size %u policy %u flags %llu nice %d priority %u runtime %llu deadline %llu period %llu clamps %u %u", label, a.size,
        a.policy, a.flags, a.nice, a.priority, a.runtime, a.deadline, a.period, a.util_min, a.util_max);
}

int main(void)
{
    show_attr("initial");
    struct attr a = { .size = sizeof a, .policy = SCHED_OTHER, .nice = 5 };
    check("SCHED_OTHER nice 5", set(&a));
    show_attr("after");
    out("getpriority: %d", getpriority(PRIO_PROCESS, 0));
    a = (struct attr){ .size = 0, .policy = SCHED_BATCH, .nice = 3 };
    check("size 0 (first version), SCHED_BATCH nice 3", set(&a));
    show_attr("after");
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER, .nice = 100 };
    check("nice 100 (clamped)", set(&a));
    show_attr("after");
    a = (struct attr){ .size = sizeof a, .policy = SCHED_FIFO, .priority = 10 };
    check("SCHED_FIFO 10", set(&a));
    show_attr("after");
    out("sched_getscheduler: %ld", syscall(SYS_sched_getscheduler, 0));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_RR, .priority = 20, .flags = 1 };
    check("SCHED_RR 20 reset-on-fork", set(&a));
    show_attr("after");
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER, .priority = 0, .flags = 0x08 /* KEEP_POLICY */ };
    check("KEEP_POLICY with priority 0 on RR", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER, .nice = -3 };
    check("back to SCHED_OTHER nice -3", set(&a));
    show_attr("after");

    a = (struct attr){ .size = 47, .policy = SCHED_OTHER };
    check("size 47", set(&a));
    out("size written back: %u", a.size);
    a = (struct attr){ .size = 4097, .policy = SCHED_OTHER };
    check("size 4097", set(&a));
    struct { struct attr a; unsigned long long extra; } big = { { .size = sizeof big, .policy = SCHED_OTHER }, 0 };
    check("size 64, zeros past", set(&big.a));
    big.extra = 1;
    check("size 64, nonzero past", set(&big.a));
    out("size written back: %u", big.a.size);
    check("NULL attr", syscall(SYS_sched_setattr, 0, NULL, 0));
    check("bad attr", syscall(SYS_sched_setattr, 0, (void *)8, 0));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER };
    check("flags 1", syscall(SYS_sched_setattr, 0, &a, 1));
    check("pid -1", syscall(SYS_sched_setattr, -1, &a, 0));
    check("no such pid", syscall(SYS_sched_setattr, 4000000, &a, 0));
    a = (struct attr){ .size = sizeof a, .policy = 4 };
    check("policy 4", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = 7 };
    check("policy 7", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = -1 };
    check("policy -1", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER, .priority = 1 };
    check("SCHED_OTHER priority 1", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_FIFO, .priority = 0 };
    check("SCHED_FIFO priority 0", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_FIFO, .priority = 100 };
    check("SCHED_FIFO priority 100", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER, .flags = 0x80 };
    check("flag 0x80", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER, .flags = 0x20, .util_min = 0 };
    check("UTIL_CLAMP_MIN", set(&a));
    a = (struct attr){ .size = 48, .policy = SCHED_OTHER, .flags = 0x20 };
    check("UTIL_CLAMP_MIN with size 48", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = 6, .runtime = 10000000, .deadline = 30000000, .period = 20000000 };
    check("DEADLINE deadline > period", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = 6, .runtime = 500, .deadline = 30000000, .period = 30000000 };
    check("DEADLINE runtime 500ns", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = 6, .runtime = 10000, .deadline = 50000, .period = 50000 };
    check("DEADLINE period 50us", set(&a));
    a = (struct attr){ .size = sizeof a, .policy = 6, .runtime = 10000, .deadline = 0, .period = 0 };
    check("DEADLINE deadline 0", set(&a));

    check("getattr size 47", syscall(SYS_sched_getattr, 0, &a, 47, 0));
    check("getattr size 4097", syscall(SYS_sched_getattr, 0, &a, 4097, 0));
    check("getattr flags 1", syscall(SYS_sched_getattr, 0, &a, sizeof a, 1));
    check("getattr NULL", syscall(SYS_sched_getattr, 0, NULL, sizeof a, 0));
    check("getattr bad pointer", syscall(SYS_sched_getattr, 0, (void *)8, sizeof a, 0));
    check("getattr no such pid", syscall(SYS_sched_getattr, 4000000, &a, sizeof a, 0));
    struct { struct attr a; unsigned long long extra; } g;
    memset(&g, 0xff, sizeof g);
    check("getattr size 64", syscall(SYS_sched_getattr, 0, &g, sizeof g, 0));
    out("size reported: %u, bytes past untouched: %s", g.a.size, yesno(g.extra == ~0ULL));
    memset(&g, 0xff, sizeof g);
    check("getattr size 48", syscall(SYS_sched_getattr, 0, &g, 48, 0));
    out("size reported: %u, clamps untouched: %s", g.a.size, yesno(g.a.util_min == ~0U));

    pid_t child = fork();
    if (child == 0) {
        if (setresuid(65534, 65534, 65534) != 0)
            _exit(9);
        struct attr u = { .size = sizeof u, .policy = SCHED_OTHER, .nice = 0 };
        check("unprivileged: nice 0 from -3", set(&u));
        u = (struct attr){ .size = sizeof u, .policy = SCHED_OTHER, .nice = 10 };
        check("unprivileged: nice 10", set(&u));
        u = (struct attr){ .size = sizeof u, .policy = SCHED_OTHER, .nice = 5 };
        check("unprivileged: nice 5 from 10", set(&u));
        u = (struct attr){ .size = sizeof u, .policy = SCHED_FIFO, .priority = 1 };
        check("unprivileged: SCHED_FIFO", set(&u));
        u = (struct attr){ .size = sizeof u, .policy = 6, .runtime = 10000000, .deadline = 30000000, .period = 30000000 };
        check("unprivileged: SCHED_DEADLINE", set(&u));
        u = (struct attr){ .size = sizeof u, .policy = SCHED_IDLE };
        check("unprivileged: SCHED_IDLE", set(&u));
        check("unprivileged: parent's", syscall(SYS_sched_setattr, getppid(), &u, 0));
        _exit(0);
    }
    reap("unprivileged", child);
    return 0;
}
