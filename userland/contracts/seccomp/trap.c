/* SECCOMP_RET_TRAP: SIGSYS with si_code SYS_SECCOMP, si_errno the filter's
 * data, si_syscall the call's number, si_arch AUDIT_ARCH_X86_64 and
 * si_call_addr the address after the syscall instruction; the handler
 * sees rax holding the call's number, which is what the call "returns"
 * once the handler is done; the call did not run. A blocked or ignored
 * SIGSYS cannot be refused: the process ends by SIGSYS. */
#include "seccomp.h"
#include <ucontext.h>

static volatile int hits;
static siginfo_t got;
static long rax_seen, rip_seen;

static void on_sys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
    got = *si;
    rax_seen = uc->uc_mcontext.gregs[REG_RAX];
    rip_seen = uc->uc_mcontext.gregs[REG_RIP];
    hits++;
}

/* getppid through a syscall instruction whose next address is known. */
extern char after_call[];
__attribute__((noinline)) static long traced_getppid(long arg)
{
    long ret;
    __asm__ volatile("syscall\n.globl after_call\nafter_call:"
                     : "=a"(ret)
                     : "a"(SYS_getppid), "D"(arg)
                     : "rcx", "r11", "memory");
    return ret;
}

static void refused(const char *label, int how)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (how == 0) {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGSYS);
            sigprocmask(SIG_BLOCK, &set, NULL);
        } else {
            signal(SIGSYS, SIG_IGN);
        }
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        sc_on(0, SYS_getppid, RET_TRAP | 3);
        rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
        out("%s: survived", label);
        _exit(0);
    }
    reap(label, pid);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    pid_t parent = getppid();
    prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
    check("install", sc_on(0, SYS_getppid, RET_TRAP | 0x1234));

    long r = traced_getppid(0);
    out("hits: %d", hits);
    out("returned the call's number: %s", yesno(r == SYS_getppid));
    out("ran: %s", yesno(r == parent));
    out("si_signo: %s", signame(got.si_signo));
    out("si_code: %d (SYS_SECCOMP: %s)", got.si_code, yesno(got.si_code == SYS_SECCOMP_));
    out("si_errno: %#x", got.si_errno);
    out("si_syscall: %d", got.si_syscall);
    out("si_arch: %#x", got.si_arch);
    out("si_call_addr after the syscall: %s", yesno(got.si_call_addr == (void *)after_call));
    out("rax in the handler: %ld", rax_seen);
    out("rip in the handler after the syscall: %s", yesno(rip_seen == (long)after_call));

    /* The data is 16 bits; the handler runs each time. */
    r = traced_getppid(0);
    out("again: hits %d, returned the number: %s", hits, yesno(r == SYS_getppid));

    refused("blocked SIGSYS", 0);
    refused("ignored SIGSYS", 1);
    return 0;
}
