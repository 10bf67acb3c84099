/* A software breakpoint as gdb makes one: the tracer writes int3 (0xcc)
 * over the first byte of a function in the tracee's read-only text with
 * POKETEXT; the call stops with SIGTRAP, si_code SI_KERNEL, si_addr 0,
 * rip just past the int3; putting the byte back and rip one back lets the
 * function run as written. */
#include "ptrace.h"

__attribute__((noinline)) int bp_fn(int x)
{
    return x * 3;
}

static int (*volatile fnp)(int) = bp_fn;

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        _exit(fnp(14) == 42 ? 0 : 1);
    }
    pwait("stop", pid);
    unsigned long at = (unsigned long)&bp_fn;
    errno = 0;
    long orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, 0);
    out("PEEKTEXT: %s", errno ? errname(errno) : "ok");
    pt("POKETEXT int3", ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)((orig & ~0xffL) | 0xcc)));
    out("own text unchanged: %s", yesno(*(volatile unsigned char *)at != 0xcc));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("breakpoint", pid);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    out("si_signo %s si_code %#x si_addr %p", signame(si.si_signo), si.si_code, si.si_addr);
    struct user_regs_struct regs;
    ptrace(PTRACE_GETREGS, pid, 0, &regs);
    out("rip past the int3: %s", yesno(regs.rip == at + 1));
    pt("POKETEXT original", ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)orig));
    regs.rip = at;
    pt("SETREGS", ptrace(PTRACE_SETREGS, pid, 0, &regs));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
