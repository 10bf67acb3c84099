/* sched_setscheduler/sched_setparam: root may switch to SCHED_FIFO/RR with
 * a priority in 1..99 and back; SCHED_OTHER/BATCH/IDLE need priority 0;
 * out-of-range priorities and policies are EINVAL; a non-root process may
 * not choose a real-time policy (EPERM). */
#include "common.h"
#include <sched.h>

static const char *pol(int p)
{
    switch (p) {
    case SCHED_OTHER: return "SCHED_OTHER";
    case SCHED_FIFO: return "SCHED_FIFO";
    case SCHED_RR: return "SCHED_RR";
    case SCHED_BATCH: return "SCHED_BATCH";
    case SCHED_IDLE: return "SCHED_IDLE";
    }
    return "?";
}

static long setsch(int policy, int prio)
{
    struct sched_param sp = {.sched_priority = prio};
    return syscall(SYS_sched_setscheduler, 0, policy, &sp);
}

static void now(void)
{
    struct sched_param sp;
    syscall(SYS_sched_getparam, 0, &sp);
    out("  now %s priority %d", pol(syscall(SYS_sched_getscheduler, 0)), sp.sched_priority);
}

int main(void)
{
    check("SCHED_FIFO 10", setsch(SCHED_FIFO, 10));
    now();
    struct sched_param sp = {.sched_priority = 20};
    check("sched_setparam 20", syscall(SYS_sched_setparam, 0, &sp));
    now();
    check("SCHED_RR 99", setsch(SCHED_RR, 99));
    now();
    check("SCHED_RR 100", setsch(SCHED_RR, 100));
    check("SCHED_FIFO 0", setsch(SCHED_FIFO, 0));
    check("SCHED_OTHER 5", setsch(SCHED_OTHER, 5));
    check("SCHED_BATCH 0", setsch(SCHED_BATCH, 0));
    now();
    check("SCHED_IDLE 0", setsch(SCHED_IDLE, 0));
    now();
    check("SCHED_OTHER 0", setsch(SCHED_OTHER, 0));
    now();
    check("policy 42", setsch(42, 0));
    check("NULL param", syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL));
    check("no such pid", syscall(SYS_sched_setscheduler, 999999, SCHED_OTHER, &sp));
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        check("non-root SCHED_FIFO 1", setsch(SCHED_FIFO, 1));
        check("non-root SCHED_BATCH", setsch(SCHED_BATCH, 0));
        now();
        _exit(0);
    }
    reap("child", pid);
    return 0;
}
