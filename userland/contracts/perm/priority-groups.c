/* getpriority and setpriority on process groups and users: the highest
 * priority among the members is reported, every member the caller may
 * change is changed, and the answer is the failure of a member the caller
 * may not change (EPERM), or ESRCH when nothing matches; as uid 1000, on a
 * group of its own processes and on a group that also holds a root
 * process. */
#include "perm.h"
#include <sys/resource.h>

static int go[2];

/* A member of process group `pgid` (0: a new group led by it), as uid
 * `id` (0: stays root) with nice value `nice`. */
static pid_t member(pid_t pgid, uid_t id, int nice)
{
    int ready[2];
    pipe(ready);
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]);
        setpgid(0, pgid);
        if (id != 0)
            become(id, NO_CAP);
        setpriority(PRIO_PROCESS, 0, nice);
        write(ready[1], "x", 1);
        char c;
        read(go[0], &c, 1);
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    close(ready[0]);
    close(ready[1]);
    return pid;
}

static void show_nice(const char *label, pid_t pid)
{
    errno = 0;
    int n = getpriority(PRIO_PROCESS, pid);
    out("    %s nice: %d", label, errno ? -100 : n);
}

/* Prints a raw getpriority result: 20 - nice, or the error. */
static void gp(const char *label, int which, int who)
{
    long r = rawsys(SYS_getpriority, which, who, 0, 0, 0, 0);
    if (r < 0)
        out("%s: %s", label, errname((int)-r));
    else
        out("%s: %ld", label, r);
}

static void scenario(long unused)
{
    (void)unused;
    pipe(go);
    pid_t a = member(0, 0, 3);
    pid_t b = member(a, 0, 6);
    out("  own group");
    gp("    getpriority(PRIO_PGRP)", PRIO_PGRP, a);
    rcheck("    setpriority(PRIO_PGRP, 8)", rawsys(SYS_setpriority, PRIO_PGRP, a, 8, 0, 0, 0));
    show_nice("a", a);
    show_nice("b", b);
    rcheck("    setpriority(PRIO_PGRP, 7)", rawsys(SYS_setpriority, PRIO_PGRP, a, 7, 0, 0, 0));
    show_nice("a", a);
    gp("    getpriority(PRIO_USER, 0)", PRIO_USER, 0);
    gp("    getpriority(PRIO_USER, 1000)", PRIO_USER, 1000);
    gp("    getpriority(PRIO_USER, 4242)", PRIO_USER, 4242);
    rcheck("    setpriority(PRIO_USER, 4242, 1)", rawsys(SYS_setpriority, PRIO_USER, 4242, 1, 0, 0, 0));
    gp("    getpriority(PRIO_PGRP, 999999)", PRIO_PGRP, 999999);
    gp("    getpriority(3, 0)", 3, 0);
    rcheck("    setpriority(3, 0, 1)", rawsys(SYS_setpriority, 3, 0, 1, 0, 0, 0));
    close(go[1]);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);
    close(go[0]);
}

int main(void)
{
    out("uid 1000");
    as_user(NO_CAP, scenario, 0);
    /* A group with a root member: uid 1000 changes only its own. */
    pipe(go);
    pid_t leader = member(0, 1000, 2);
    pid_t rootling = member(leader, 0, 2);
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        out("mixed group as uid 1000");
        gp("  getpriority(PRIO_PGRP)", PRIO_PGRP, leader);
        rcheck("  setpriority(PRIO_PGRP, 5)", rawsys(SYS_setpriority, PRIO_PGRP, leader, 5, 0, 0, 0));
        show_nice("uid 1000 leader", leader);
        show_nice("root member", rootling);
        _exit(0);
    }
    reap("  child", pid);
    close(go[1]);
    waitpid(leader, NULL, 0);
    waitpid(rootling, NULL, 0);
    return 0;
}
