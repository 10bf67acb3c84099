/* SCHED_RESET_ON_FORK: sched_getscheduler reports it with the policy; a
 * child of a SCHED_FIFO process that set it starts as SCHED_OTHER with
 * priority 0 and nice 0, and without the flag; with SCHED_OTHER and a
 * negative nice value the child's nice is 0 and a positive one is kept.
 * Without CAP_SYS_NICE a process may set the flag but not clear it. */
#include <sched.h>
#include <sys/resource.h>
#include "../perm/perm.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* musl leaves these calls out (ENOSYS): the raw system calls. */
static long setsched(int policy, struct sched_param *p)
{
    return syscall(SYS_sched_setscheduler, 0, policy, p);
}

static void child_report(const char *label)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct sched_param p = { 0 };
        syscall(SYS_sched_getparam, 0, &p);
        errno = 0;
        int nice = getpriority(PRIO_PROCESS, 0);
        out("%s: child policy %#x priority %d nice %d", label, (int)syscall(SYS_sched_getscheduler, 0), p.sched_priority, nice);
        _exit(0);
    }
    reap("child", pid);
}

int main(void)
{
    struct sched_param p = { .sched_priority = 10 };
    show("FIFO 10 with the flag", setsched(SCHED_FIFO | SCHED_RESET_ON_FORK, &p));
    out("parent policy %#x", (int)syscall(SYS_sched_getscheduler, 0));
    child_report("after FIFO");
    p.sched_priority = 0;
    show("OTHER with the flag", setsched(SCHED_OTHER | SCHED_RESET_ON_FORK, &p));
    show("nice -5", setpriority(PRIO_PROCESS, 0, -5));
    child_report("after nice -5");
    show("nice 7", setpriority(PRIO_PROCESS, 0, 7));
    child_report("after nice 7");
    show("root clears the flag", setsched(SCHED_OTHER, &p));
    out("parent policy %#x", (int)syscall(SYS_sched_getscheduler, 0));
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        show("uid 1000 sets the flag", setsched(SCHED_OTHER | SCHED_RESET_ON_FORK, &p));
        show("uid 1000 clears it", setsched(SCHED_OTHER, &p));
        out("uid 1000 policy %#x", (int)syscall(SYS_sched_getscheduler, 0));
        _exit(0);
    }
    reap("uid 1000", pid);
    return 0;
}
