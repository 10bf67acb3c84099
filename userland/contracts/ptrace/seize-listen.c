/* PTRACE_SEIZE does not stop the tracee; INTERRUPT stops it with
 * PTRACE_EVENT_STOP; a group stop of a seized tracee is reported with
 * PTRACE_EVENT_STOP and the stop signal; LISTEN leaves it stopped until
 * SIGCONT, which makes it trap again. */
#include "ptrace.h"

int main(void)
{
    int pfd[2];
    pipe(pfd);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        write(pfd[1], "x", 1);
        for (;;)
            pause();
    }
    close(pfd[1]);
    char c;
    read(pfd[0], &c, 1);
    pt("SEIZE bad addr", ptrace(PTRACE_SEIZE, pid, (void *)1, 0));
    pt("SEIZE bad option", ptrace(PTRACE_SEIZE, pid, 0, (void *)0x80000000L));
    pt("SEIZE", ptrace(PTRACE_SEIZE, pid, 0, (void *)PTRACE_O_TRACESYSGOOD));
    int st;
    show("waitpid WNOHANG", waitpid(pid, &st, WNOHANG | __WALL));
    pt("INTERRUPT", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
    pwait("interrupt stop", pid);
    /* LISTEN after an interrupt stop: the tracee is no longer in a ptrace
     * stop until it traps again. */
    pt("LISTEN after INTERRUPT", ptrace(PTRACE_LISTEN, pid, 0, 0));
    pt("CONT while listening", ptrace(PTRACE_CONT, pid, 0, 0));
    show("waitpid WNOHANG while listening", waitpid(pid, &st, WNOHANG | __WALL));
    pt("INTERRUPT while listening", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
    pwait("interrupt stop", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    kill(pid, SIGSTOP);
    pwait("SIGSTOP", pid);
    pt("CONT with SIGSTOP", ptrace(PTRACE_CONT, pid, 0, (void *)SIGSTOP));
    pwait("group stop", pid);
    out("%s", status_line(pid, "State:"));
    pt("LISTEN", ptrace(PTRACE_LISTEN, pid, 0, 0));
    msleep(50);
    show("waitpid WNOHANG while listening", waitpid(pid, &st, WNOHANG | __WALL));
    out("%s", status_line(pid, "State:"));
    kill(pid, SIGCONT);
    pwait("after SIGCONT", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("SIGCONT", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pt("INTERRUPT", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
    pwait("interrupt stop", pid);
    pt("DETACH", ptrace(PTRACE_DETACH, pid, 0, 0));
    kill(pid, SIGTERM);
    pwait("end", pid);
    return 0;
}
