/* Each action a filter can return, on getppid in a child with
 * no_new_privs: ALLOW and LOG run the call; ERRNO fails it with the data
 * (0 returns 0, above 4095 clamped to 4095); TRACE without a tracer and
 * USER_NOTIF without a listener fail with ENOSYS; KILL_PROCESS,
 * KILL_THREAD (the only thread) and an unknown action end the process by
 * SIGSYS; the call after an ERRNO is still filtered. */
#include "seccomp.h"

static void action(const char *label, uint32_t act)
{
    pid_t pid = fork();
    if (pid == 0) {
        pid_t parent = getppid();
        if (prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0) || sc_on(0, SYS_getppid, act))
            _exit(2);
        long r = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
        if (r == parent)
            out("%s: the call ran", label);
        else if (r < 0 && r > -4096)
            out("%s: -%s (%ld)", label, errname((int)-r), -r);
        else
            out("%s: returned %ld", label, r);
        r = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
        out("%s: again: %s", label, r == parent ? "ran" : r == 0 ? "0" : r < 0 ? errname((int)-r) : "other");
        show("getpid is not filtered", getpid() > 0);
        _exit(0);
    }
    char l[80];
    snprintf(l, sizeof l, "%s: child", label);
    reap(l, pid);
}

int main(void)
{
    action("ALLOW", RET_ALLOW);
    action("LOG", RET_LOG);
    action("ERRNO|EPERM", RET_ERRNO | EPERM);
    action("ERRNO|ENOTSUP", RET_ERRNO | 95);
    action("ERRNO|0", RET_ERRNO);
    action("ERRNO|4095", RET_ERRNO | 4095);
    action("ERRNO|5000", RET_ERRNO | 5000);
    action("ERRNO|0xffff", RET_ERRNO | 0xffff);
    action("TRACE", RET_TRACE);
    action("TRACE|7", RET_TRACE | 7);
    action("USER_NOTIF", RET_USER_NOTIF);
    action("TRAP", RET_TRAP);
    action("KILL_THREAD", RET_KILL_THREAD);
    action("KILL_THREAD|9", RET_KILL_THREAD | 9);
    action("KILL_PROCESS", RET_KILL_PROCESS);
    action("unknown 0x00010000", 0x00010000);
    action("unknown 0x7fff0001 (ALLOW's data)", 0x7fff0001);
    action("unknown 0x7ffe0000", 0x7ffe0000);
    return 0;
}
