/* The debug registers of struct user (u_debugreg) through PEEKUSER and
 * POKEUSER: their initial values (DR6 reads 0xffff0ff0), addresses that
 * must be in user space and aligned to the breakpoint's length (EINVAL),
 * DR4 and DR5 that cannot be written (EIO), DR7 values Linux refuses
 * (I/O breakpoints, instruction breakpoints longer than 1 byte, a
 * misaligned address: EINVAL, DR7 unchanged), DR7 and DR6 reading back
 * what was written. */
#include "ptrace.h"

static volatile long target[4];

#define DR(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))

static void peek(pid_t pid, int n)
{
    errno = 0;
    long v = ptrace(PTRACE_PEEKUSER, pid, DR(n), 0);
    if (errno)
        out("peek DR%d: %s", n, errname(errno));
    else
        out("peek DR%d: %#lx", n, v);
}

static void poke(pid_t pid, int n, unsigned long v, const char *what)
{
    long r = ptrace(PTRACE_POKEUSER, pid, DR(n), v);
    out("poke DR%d %s: %s", n, what, r == 0 ? "ok" : errname(errno));
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        _exit(0);
    }
    pwait("stop", pid);
    for (int n = 0; n < 8; n++)
        peek(pid, n);
    unsigned long a = (unsigned long)&target[0];
    poke(pid, 0, a, "= &target");
    errno = 0;
    out("DR0 reads back: %s", yesno((unsigned long)ptrace(PTRACE_PEEKUSER, pid, DR(0), 0) == a && !errno));
    poke(pid, 1, 0xffffffff81000000UL, "= kernel address");
    /* (Where user space ends depends on the CPU's paging levels.) */
    poke(pid, 1, 0x7ffff0000000UL, "= 0x7ffff0000000");
    poke(pid, 4, 0, "= 0");
    poke(pid, 5, 1, "= 1");
    poke(pid, 6, 0, "= 0");
    peek(pid, 6);
    poke(pid, 6, 0xffff0ff0UL, "= 0xffff0ff0");
    /* DR0 a 4-byte write watchpoint, enabled locally. */
    poke(pid, 7, 0x1 | 1UL << 16 | 3UL << 18, "= L0 write len 4");
    peek(pid, 7);
    poke(pid, 0, a + 1, "= &target + 1 (misaligned for len 4)");
    poke(pid, 0, a + 4, "= &target + 4");
    poke(pid, 0, a, "= &target");
    poke(pid, 7, 0x1 | 2UL << 16, "= L0 I/O");
    peek(pid, 7);
    poke(pid, 7, 0x1 | 3UL << 18, "= L0 execute len 4");
    poke(pid, 7, 0x4 | 2UL << 20, "= L1 I/O (DR1 never set)");
    poke(pid, 7, 0x10 | 1UL << 24 | 2UL << 26, "= L2 write len 8 at address 0");
    peek(pid, 2);
    poke(pid, 7, 0x1 | 1UL << 16 | 2UL << 18, "= L0 write len 8");
    poke(pid, 7, 0x2 | 3UL << 16 | 2UL << 18, "= G0 read-write len 8");
    peek(pid, 7);
    poke(pid, 7, 0x0400 | 0x1 | 1UL << 16, "= L0 write len 1 with reserved bit 10");
    peek(pid, 7);
    poke(pid, 7, 0x2UL << 16, "= 0 (disabled, I/O type for DR0)");
    poke(pid, 7, 0, "= 0");
    peek(pid, 7);
    errno = 0;
    long r = ptrace(PTRACE_PEEKUSER, pid, DR(0) + 1, 0);
    out("peek misaligned offset: %s", r == -1 && errno ? errname(errno) : "ok");
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
