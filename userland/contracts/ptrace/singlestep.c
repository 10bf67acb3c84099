/* PTRACE_SINGLESTEP runs one instruction and stops with SIGTRAP
 * (TRAP_TRACE); the trap flag is gone once the tracee continues. */
#include "ptrace.h"

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        volatile int x = 0;
        for (int i = 0; i < 1000; i++)
            x += i;
        _exit(x == 499500 ? 0 : 1);
    }
    pwait("stop", pid);
    struct user_regs_struct before, after;
    ptrace(PTRACE_GETREGS, pid, 0, &before);
    for (int i = 0; i < 3; i++) {
        pt("SINGLESTEP", ptrace(PTRACE_SINGLESTEP, pid, 0, 0));
        pwait("step", pid);
    }
    ptrace(PTRACE_GETREGS, pid, 0, &after);
    out("rip moved: %s", yesno(after.rip != before.rip));
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    out("si_signo: %s si_code: %d", signame(si.si_signo), si.si_code);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
