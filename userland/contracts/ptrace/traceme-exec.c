/* PTRACE_TRACEME then execve: the tracee stops with SIGTRAP (SI_USER)
 * after the exec; /proc shows the tracer and "t (tracing stop)"; the
 * tracer resumes it and collects its exit. */
#include "ptrace.h"

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
            _exit(100);
        /* A second TRACEME fails: already traced. */
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != -1 || errno != EPERM)
            _exit(101);
        char *argv[] = {"exit-with", "7", NULL};
        execv(HELPERS "/exit-with", argv);
        _exit(102);
    }
    int st = pwait("after exec", pid);
    if (!WIFSTOPPED(st))
        return 0;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    pt("GETSIGINFO", ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
    out("si_signo: %s si_code: %d", signame(si.si_signo), si.si_code);
    char want[64];
    snprintf(want, sizeof want, "TracerPid:\t%d", getpid());
    out("TracerPid is the tracer: %s", yesno(strcmp(status_line(pid, "TracerPid:"), want) == 0));
    out("%s", status_line(pid, "State:"));
    /* Nothing more to report while it stays stopped. */
    show("waitpid WNOHANG", waitpid(pid, &st, WNOHANG | __WALL));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    /* Resumed: other requests need a stopped tracee. */
    pwait("end", pid);
    show("waitpid again", waitpid(pid, &st, __WALL));
    return 0;
}
