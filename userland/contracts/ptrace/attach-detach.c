/* PTRACE_ATTACH stops the tracee with SIGSTOP; a second attach, attaching
 * to oneself, to nobody, or as another user to root fail; requests on a
 * tracee that is not stopped fail with ESRCH; after PTRACE_DETACH the
 * process runs on untraced. */
#include "ptrace.h"

int main(void)
{
    int pfd[2];
    pipe(pfd);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        for (;;) {
            write(pfd[1], "x", 1);
            pause();
        }
    }
    close(pfd[1]);
    char c;
    read(pfd[0], &c, 1);
    pt("CONT before attach", ptrace(PTRACE_CONT, pid, 0, 0));
    pt("ATTACH self", ptrace(PTRACE_ATTACH, getpid(), 0, 0));
    pt("ATTACH nobody", ptrace(PTRACE_ATTACH, 999999, 0, 0));
    /* Another user may not attach to a root process. */
    pid_t other = fork();
    if (other == 0) {
        if (setgid(1000) != 0 || setuid(1000) != 0)
            _exit(100);
        long r = ptrace(PTRACE_ATTACH, pid, 0, 0);
        _exit(r == -1 ? errno : 0);
    }
    int st;
    waitpid(other, &st, 0);
    out("ATTACH as uid 1000: %s", WIFEXITED(st) ? errname(WEXITSTATUS(st)) : wstatus(st));
    pt("ATTACH", ptrace(PTRACE_ATTACH, pid, 0, 0));
    pt("ATTACH again", ptrace(PTRACE_ATTACH, pid, 0, 0));
    pwait("attach stop", pid);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    pt("GETSIGINFO", ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
    out("si_signo: %s si_code: %d from tracer: %s", signame(si.si_signo), si.si_code, yesno(si.si_pid == getpid()));
    out("%s", status_line(pid, "State:"));
    /* Resume with the SIGSTOP suppressed; then it is running again. */
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pt("CONT while running", ptrace(PTRACE_CONT, pid, 0, 0));
    pt("DETACH while running", ptrace(PTRACE_DETACH, pid, 0, 0));
    kill(pid, SIGUSR2);
    pwait("SIGUSR2 stop", pid);
    pt("DETACH bad signal", ptrace(PTRACE_DETACH, pid, 0, 1000));
    pt("DETACH", ptrace(PTRACE_DETACH, pid, 0, 0));
    pt("CONT after detach", ptrace(PTRACE_CONT, pid, 0, 0));
    out("TracerPid after detach: %s", status_line(pid, "TracerPid:"));
    kill(pid, SIGTERM);
    pwait("end", pid);
    return 0;
}
