/* PEEKDATA/POKEDATA read and write the tracee's memory word by word;
 * PEEKUSER reads registers and the debug registers; bad addresses and
 * offsets fail with EIO, a bad result pointer with EFAULT. */
#include "ptrace.h"

static volatile long value = 0x1122334455667788L;
static volatile char edge[8192] __attribute__((aligned(4096)));

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        _exit(value == 0x0102030405060708L && edge[4095] == 0x55 && edge[4096] == 0x66 ? 0 : 1);
    }
    pwait("stop", pid);
    long word = 0;
    errno = 0;
    word = ptrace(PTRACE_PEEKDATA, pid, (void *)&value, 0);
    out("PEEKDATA: %s value %lx", errname(errno), word);
    pt("POKEDATA", ptrace(PTRACE_POKEDATA, pid, (void *)&value, (void *)0x0102030405060708L));
    errno = 0;
    word = ptrace(PTRACE_PEEKTEXT, pid, (void *)&value, 0);
    out("PEEKTEXT after poke: %s value %lx", errname(errno), word);
    /* A word across a page boundary. */
    pt("POKEDATA across pages", ptrace(PTRACE_POKEDATA, pid, (void *)&edge[4092], (void *)0x0000006655000000L));
    errno = 0;
    word = ptrace(PTRACE_PEEKDATA, pid, (void *)&edge[4092], 0);
    out("PEEKDATA across pages: %s value %lx", errname(errno), word);
    errno = 0;
    ptrace(PTRACE_PEEKDATA, pid, (void *)0, 0);
    out("PEEKDATA at 0: %s", errname(errno));
    errno = 0;
    ptrace(PTRACE_PEEKDATA, pid, (void *)-8L, 0);
    out("PEEKDATA at -8: %s", errname(errno));
    pt("POKEDATA at 0", ptrace(PTRACE_POKEDATA, pid, (void *)0, (void *)1));
    /* The raw call stores the word at data. */
    long r = rawsys(SYS_ptrace, PTRACE_PEEKDATA, pid, (long)&value, 16, 0, 0);
    rcheck("raw PEEKDATA to a bad pointer", r);
    long got = 0;
    r = rawsys(SYS_ptrace, PTRACE_PEEKDATA, pid, (long)&value, (long)&got, 0, 0);
    out("raw PEEKDATA: %ld value %lx", r, got);
    /* PEEKUSER: registers agree with GETREGS. */
    struct user_regs_struct regs;
    pt("GETREGS", ptrace(PTRACE_GETREGS, pid, 0, &regs));
    errno = 0;
    long rip = ptrace(PTRACE_PEEKUSER, pid, (void *)offsetof(struct user_regs_struct, rip), 0);
    out("PEEKUSER rip matches: %s", yesno(errno == 0 && (unsigned long)rip == regs.rip));
    errno = 0;
    long rsp = ptrace(PTRACE_PEEKUSER, pid, (void *)offsetof(struct user_regs_struct, rsp), 0);
    out("PEEKUSER rsp matches: %s", yesno(errno == 0 && (unsigned long)rsp == regs.rsp));
    errno = 0;
    long dr7 = ptrace(PTRACE_PEEKUSER, pid, (void *)(offsetof(struct user, u_debugreg) + 7 * 8), 0);
    out("PEEKUSER dr7: %s %ld", errname(errno), dr7);
    errno = 0;
    ptrace(PTRACE_PEEKUSER, pid, (void *)3, 0);
    out("PEEKUSER unaligned: %s", errname(errno));
    errno = 0;
    ptrace(PTRACE_PEEKUSER, pid, (void *)sizeof(struct user), 0);
    out("PEEKUSER past struct user: %s", errname(errno));
    pt("POKEUSER unaligned", ptrace(PTRACE_POKEUSER, pid, (void *)5, 0));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
