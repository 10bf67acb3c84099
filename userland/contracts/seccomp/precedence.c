/* Several filters: every one runs, newest first, and the most restrictive
 * action wins (KILL_PROCESS < KILL_THREAD < TRAP < ERRNO < USER_NOTIF <
 * TRACE < LOG < ALLOW, compared as signed numbers); on a tie the newest
 * filter's data stays. */
#include "seccomp.h"

static void pair(const char *label, uint32_t first, uint32_t second)
{
    pid_t pid = fork();
    if (pid == 0) {
        pid_t parent = getppid();
        if (prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0) || sc_on(0, SYS_getppid, first) || sc_on(0, SYS_getppid, second))
            _exit(2);
        long r = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
        if (r == parent)
            out("%s: the call ran", label);
        else if (r < 0 && r > -4096)
            out("%s: -%s", label, errname((int)-r));
        else
            out("%s: returned %ld", label, r);
        _exit(0);
    }
    char l[80];
    snprintf(l, sizeof l, "%s: child", label);
    reap(l, pid);
}

int main(void)
{
    pair("ERRNO 10 then ERRNO 20", RET_ERRNO | 10, RET_ERRNO | 20);
    pair("ERRNO 20 then ERRNO 10", RET_ERRNO | 20, RET_ERRNO | 10);
    pair("ALLOW then ERRNO", RET_ALLOW, RET_ERRNO | EPERM);
    pair("ERRNO then ALLOW", RET_ERRNO | EPERM, RET_ALLOW);
    pair("ERRNO then LOG", RET_ERRNO | EACCES, RET_LOG);
    pair("TRACE then ERRNO", RET_TRACE, RET_ERRNO | EACCES);
    pair("USER_NOTIF then TRACE", RET_USER_NOTIF, RET_TRACE);
    pair("TRAP then ERRNO", RET_TRAP, RET_ERRNO | EACCES);
    pair("KILL_THREAD then TRAP", RET_KILL_THREAD, RET_TRAP);
    pair("KILL_PROCESS then ALLOW", RET_KILL_PROCESS, RET_ALLOW);
    pair("ALLOW then KILL_PROCESS", RET_ALLOW, RET_KILL_PROCESS);
    pair("LOG then ALLOW", RET_LOG, RET_ALLOW);
    /* Filters on different calls: each still applies to its own. */
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        sc_on(0, SYS_getppid, RET_ERRNO | 11);
        sc_on(0, SYS_getpgid, RET_ERRNO | 12);
        sc_on(0, SYS_getsid, RET_ERRNO | 13);
        show("getppid", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0));
        show("getpgid", rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0));
        show("getsid", rawsys(SYS_getsid, 0, 0, 0, 0, 0, 0));
        sc_status("three filters", "/proc/self/status");
        show("PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
        _exit(0);
    }
    reap("three filters", pid);
    return 0;
}
