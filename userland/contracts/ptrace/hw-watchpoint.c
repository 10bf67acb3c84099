/* Hardware breakpoints set through the debug registers: a write
 * watchpoint stops the tracee with SIGTRAP, si_code TRAP_HWBKPT, si_addr
 * the instruction after the store, DR6 telling which one matched; an
 * instruction breakpoint stops before the instruction and continuing
 * runs it (no second stop); a single step shows in DR6 (BS); after
 * exec the breakpoints are gone. */
#include "ptrace.h"

static volatile int watched;

__attribute__((noinline)) void target_fn(void)
{
    __asm__ volatile("" ::: "memory");
}

#define DR(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))

static void report(const char *label, pid_t pid)
{
    pwait(label, pid);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    struct user_regs_struct regs;
    ptrace(PTRACE_GETREGS, pid, 0, &regs);
    errno = 0;
    long dr6 = ptrace(PTRACE_PEEKUSER, pid, DR(6), 0);
    long w = ptrace(PTRACE_PEEKDATA, pid, (void *)&watched, 0);
    out("  %s si_code %d, si_addr is rip: %s, at target_fn: %s, DR6 %#lx, watched %d",
        signame(si.si_signo), si.si_code, yesno((unsigned long)si.si_addr == regs.rip),
        yesno(regs.rip == (unsigned long)&target_fn), dr6, (int)w);
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        watched = 1;
        watched = 2;
        target_fn();
        raise(SIGSTOP);
        execl("/proc/self/exe", "hw-watchpoint", "exec", (char *)0);
        _exit(127);
    }
    pwait("stop", pid);
    pt("poke DR0", ptrace(PTRACE_POKEUSER, pid, DR(0), (void *)&watched));
    pt("poke DR1", ptrace(PTRACE_POKEUSER, pid, DR(1), (void *)&target_fn));
    /* DR0: write, 4 bytes; DR1: execute. */
    pt("poke DR7", ptrace(PTRACE_POKEUSER, pid, DR(7), 0x1 | 0x4 | 1UL << 16 | 3UL << 18));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    report("first store", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    report("second store", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    report("call", pid);
    pt("SINGLESTEP", ptrace(PTRACE_SINGLESTEP, pid, 0, 0));
    report("step", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    report("raise", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("exec", pid);
    errno = 0;
    long dr7 = ptrace(PTRACE_PEEKUSER, pid, DR(7), 0);
    long dr0 = ptrace(PTRACE_PEEKUSER, pid, DR(0), 0);
    long dr6 = ptrace(PTRACE_PEEKUSER, pid, DR(6), 0);
    out("after exec: DR7 %#lx, DR0 %#lx, DR6 %#lx", dr7, dr0, dr6);
    ptrace(PTRACE_DETACH, pid, 0, 0);
    pwait("end", pid);
    return 0;
}
