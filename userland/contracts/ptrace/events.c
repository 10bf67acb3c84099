/* TRACEFORK, TRACEEXEC and TRACEEXIT: the fork event carries the new pid
 * and the child starts traced and stopped by SIGSTOP; the exec event
 * replaces the SIGTRAP; the exit event carries the wait status; a tracee
 * that is not the tracer's child is reaped by the tracer too. */
#include "ptrace.h"

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        pid_t g = fork();
        if (g == 0)
            _exit(5);
        int st;
        if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
            _exit(1);
        char *argv[] = {"exit-with", "3", NULL};
        execv(HELPERS "/exit-with", argv);
        _exit(2);
    }
    pwait("stop", pid);
    pt("SETOPTIONS", ptrace(PTRACE_SETOPTIONS, pid, 0,
                            (void *)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("fork event", pid);
    unsigned long msg = 0;
    pt("GETEVENTMSG", ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg));
    pid_t g = (pid_t)msg;
    out("new pid differs: %s", yesno(g != pid && g > 0));
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    out("fork stop si_code: %#x", si.si_code);
    pwait("new child", g);
    char want[64];
    snprintf(want, sizeof want, "TracerPid:\t%d", getpid());
    out("new child traced by us: %s", yesno(strcmp(status_line(g, "TracerPid:"), want) == 0));
    pt("CONT new child", ptrace(PTRACE_CONT, g, 0, 0));
    pwait("new child exit event", g);
    pt("GETEVENTMSG", ptrace(PTRACE_GETEVENTMSG, g, 0, &msg));
    out("exit event message: %s", wstatus((int)msg));
    pt("CONT new child", ptrace(PTRACE_CONT, g, 0, 0));
    pwait("new child end", g);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    /* The SIGCHLD of the new child's end reaches its parent. */
    pwait("SIGCHLD stop", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("exec event", pid);
    pt("GETEVENTMSG", ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg));
    out("exec event message is the pid: %s", yesno((pid_t)msg == pid));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("exit event", pid);
    pt("GETEVENTMSG", ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg));
    out("exit event message: %s", wstatus((int)msg));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
