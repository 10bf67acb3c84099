/* Strict mode: only read, write, exit and rt_sigreturn; any other call
 * (exit_group, getpid, prctl itself) kills the thread with SIGKILL;
 * entered by seccomp(2) or prctl (which ignores its third argument);
 * the argument checks; refused (EINVAL) after a filter; PR_GET_SECCOMP and
 * /proc/PID/status before. */
#include "seccomp.h"

static void child(int how, int then)
{
    pid_t pid = fork();
    if (pid == 0) {
        long r;
        if (how == 0)
            r = rawsys(SYS_seccomp, SECCOMP_SET_MODE_STRICT_, 0, 0, 0, 0, 0);
        else
            r = rawsys(SYS_prctl, PR_SET_SECCOMP, 1, 12345, 0, 0, 0);
        if (r != 0)
            rawsys(SYS_exit, 10, 0, 0, 0, 0, 0);
        const char msg[] = "strict: write works\n";
        if (rawsys(SYS_write, 1, (long)msg, sizeof msg - 1, 0, 0, 0) != sizeof msg - 1)
            rawsys(SYS_exit, 11, 0, 0, 0, 0, 0);
        char c;
        if (rawsys(SYS_read, 0, (long)&c, 1, 0, 0, 0) != 0) /* /dev/null or an empty pipe */
            rawsys(SYS_exit, 12, 0, 0, 0, 0, 0);
        switch (then) {
        case 0: rawsys(SYS_exit, 0, 0, 0, 0, 0, 0); break;
        case 1: rawsys(SYS_exit_group, 0, 0, 0, 0, 0, 0); break;
        case 2: rawsys(SYS_getpid, 0, 0, 0, 0, 0, 0); break;
        case 3: rawsys(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0); break;
        case 4: rawsys(SYS_seccomp, SECCOMP_SET_MODE_STRICT_, 0, 0, 0, 0, 0); break;
        }
        rawsys(SYS_exit, 13, 0, 0, 0, 0, 0);
    }
    static const char *whats[] = { "exit", "exit_group", "getpid", "PR_GET_SECCOMP", "strict again" };
    char label[64];
    snprintf(label, sizeof label, "%s, then %s", how ? "prctl" : "seccomp", whats[then]);
    reap(label, pid);
}

int main(void)
{
    show("PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
    sc_status("status", "/proc/self/status");
    show("strict with flags", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT_, 1, 0));
    show("strict with args", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT_, 0, 8));
    show("bad operation", syscall(SYS_seccomp, 4, 0, 0));
    show("PR_SET_SECCOMP mode 0", prctl(PR_SET_SECCOMP, 0, 0, 0, 0));
    show("PR_SET_SECCOMP mode 3", prctl(PR_SET_SECCOMP, 3, 0, 0, 0));
    for (int then = 0; then < 5; then++)
        child(0, then);
    child(1, 0);
    child(1, 2);
    /* In a child that reports the stricter mode in /proc first. */
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        sc_on(0, SYS_getppid, RET_ERRNO | 1);
        show("filter, then strict", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT_, 0, 0));
        show("PR_GET_SECCOMP in filter mode", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
        _exit(0);
    }
    reap("filter child", pid);
    return 0;
}
