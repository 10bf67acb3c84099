/* unshare(2) and clone(2)'s namespace flags: flags unshare does not know
 * (EINVAL), the bits above 32, CLONE_NEWNS|CLONE_FS and
 * CLONE_NEWIPC|CLONE_SYSVSEM for clone (EINVAL), and uid 1000 without
 * CAP_SYS_ADMIN asking for a mount, UTS or cgroup namespace (EPERM), while
 * unshare(0), CLONE_FILES and CLONE_FS need no privilege. */
#include "../common.h"
#include <sched.h>

/* clone(2) with `flags` and no new stack: the child exits at once. */
static void try_clone(const char *label, unsigned long flags)
{
    long r = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
    if (r == 0)
        _exit(0);
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    int st;
    waitpid(r, &st, 0);
    out("%s: ok", label);
}

int main(void)
{
    check("unshare(0)", unshare(0));
    check("unshare(CLONE_FILES)", unshare(CLONE_FILES));
    check("unshare(CLONE_FS)", unshare(CLONE_FS));
    check("unshare(CLONE_SYSVSEM)", unshare(CLONE_SYSVSEM));
    check("unshare(CSIGNAL bit)", unshare(0x11));
    check("unshare(CLONE_PTRACE)", unshare(CLONE_PTRACE));
    check("unshare(CLONE_VFORK)", unshare(CLONE_VFORK));
    rcheck("unshare(1<<32)", rawsys(SYS_unshare, 1UL << 32, 0, 0, 0, 0, 0));
    rcheck("unshare(CLONE_NEWUTS|1<<32)", rawsys(SYS_unshare, CLONE_NEWUTS | (1UL << 32), 0, 0, 0, 0, 0));
    try_clone("clone(CLONE_NEWNS|CLONE_FS)", CLONE_NEWNS | CLONE_FS);
    try_clone("clone(CLONE_NEWIPC|CLONE_SYSVSEM)", CLONE_NEWIPC | CLONE_SYSVSEM);
    try_clone("clone(CLONE_NEWUTS)", CLONE_NEWUTS);
    try_clone("clone(CLONE_NEWNS)", CLONE_NEWNS);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        check("uid 1000 unshare(0)", unshare(0));
        check("uid 1000 unshare(CLONE_FILES|CLONE_FS)", unshare(CLONE_FILES | CLONE_FS));
        check("uid 1000 unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("uid 1000 unshare(CLONE_NEWUTS)", unshare(CLONE_NEWUTS));
        check("uid 1000 unshare(CLONE_NEWCGROUP)", unshare(CLONE_NEWCGROUP));
        check("uid 1000 unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
        check("uid 1000 unshare(CLONE_NEWIPC)", unshare(CLONE_NEWIPC));
        check("uid 1000 unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
        try_clone("uid 1000 clone(CLONE_NEWUTS)", CLONE_NEWUTS);
        try_clone("uid 1000 clone(CLONE_NEWNS)", CLONE_NEWNS);
        try_clone("uid 1000 clone(CLONE_NEWNS|CLONE_FS)", CLONE_NEWNS | CLONE_FS);
        _exit(0);
    }
    reap("uid 1000 child", pid);
    return 0;
}
