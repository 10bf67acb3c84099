/* PTRACE_PEEKSIGINFO lists a stopped tracee's queued signals (its own,
 * or its process's with PTRACE_PEEKSIGINFO_SHARED) in the order queued;
 * PTRACE_GETSIGMASK/SETSIGMASK read and set its mask, the mask a
 * sigsuspend will restore while one runs, and SETSIGMASK drops that. */
#include "ptrace.h"
#include <sys/mman.h>

#ifndef PTRACE_PEEKSIGINFO
#define PTRACE_PEEKSIGINFO 0x4209
#define PTRACE_GETSIGMASK 0x420a
#define PTRACE_SETSIGMASK 0x420b
#endif
#define PEEK_SHARED 1

struct peek_args {
    uint64_t off;
    uint32_t flags;
    int32_t nr;
};

static const char *code_name(int c)
{
    switch (c) {
    case SI_USER: return "SI_USER";
    case SI_QUEUE: return "SI_QUEUE";
    case SI_TKILL: return "SI_TKILL";
    }
    return "?";
}

static void list(const char *label, pid_t pid, uint64_t off, uint32_t flags, int nr)
{
    siginfo_t si[8];
    struct peek_args a = { off, flags, nr };
    memset(si, 0, sizeof si);
    long n = ptrace(PTRACE_PEEKSIGINFO, pid, &a, si);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: %ld", label, n);
    for (long i = 0; i < n && i < 8; i++)
        out("  %s %s value=%d", signame(si[i].si_signo), code_name(si[i].si_code),
            si[i].si_code == SI_QUEUE ? si[i].si_value.sival_int : -1);
}

static uint64_t mask_of(sigset_t *s)
{
    uint64_t m;
    memcpy(&m, s, 8);
    return m;
}

static volatile int handled;
static void on_usr1(int sig) { (void)sig; handled = 1; }

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
            _exit(100);
        union sigval v;
        raise(SIGUSR2);                    /* this thread's */
        v.sival_int = 7;
        sigqueue(getpid(), SIGRTMIN, v);   /* the process's */
        raise(SIGUSR1);                    /* this thread's */
        kill(getpid(), SIGTERM);           /* the process's */
        v.sival_int = 8;
        sigqueue(getpid(), SIGRTMIN, v);
        v.sival_int = 9;
        syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGRTMIN + 1, &(siginfo_t){ .si_signo = SIGRTMIN + 1, .si_code = SI_QUEUE, .si_value = v });
        kill(getpid(), SIGSTOP);
        sigset_t cur;
        sigprocmask(SIG_SETMASK, NULL, &cur);
        _exit(sigismember(&cur, SIGUSR1) + 2 * sigismember(&cur, SIGTERM));
    }
    pwait("stop", pid);
    list("own", pid, 0, 0, 8);
    list("shared", pid, 0, PEEK_SHARED, 8);
    list("own from 1, one", pid, 1, 0, 1);
    list("shared from 2", pid, 2, PEEK_SHARED, 8);
    list("past the end", pid, 10, 0, 8);
    list("huge offset", pid, ~0ULL, 0, 8);
    list("nr 0", pid, 0, 0, 0);
    list("nr -1", pid, 0, 0, -1);
    list("unknown flag", pid, 0, 2, 8);
    siginfo_t si[4];
    pt("bad args pointer", ptrace(PTRACE_PEEKSIGINFO, pid, (void *)8, si));
    struct peek_args a = { 0, 0, 4 };
    pt("bad buffer", ptrace(PTRACE_PEEKSIGINFO, pid, &a, (void *)8));
    char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(pages + 4096, 4096, PROT_NONE);
    show("buffer ending after one", ptrace(PTRACE_PEEKSIGINFO, pid, &a, pages + 4096 - sizeof(siginfo_t)));

    uint64_t m = 0;
    pt("GETSIGMASK", ptrace(PTRACE_GETSIGMASK, pid, 8, &m));
    out("mask: %#llx", (unsigned long long)m);
    pt("GETSIGMASK size 4", ptrace(PTRACE_GETSIGMASK, pid, 4, &m));
    pt("GETSIGMASK bad pointer", ptrace(PTRACE_GETSIGMASK, pid, 8, (void *)8));
    pt("SETSIGMASK size 16", ptrace(PTRACE_SETSIGMASK, pid, 16, &m));
    pt("SETSIGMASK bad pointer", ptrace(PTRACE_SETSIGMASK, pid, 8, (void *)8));
    m = ~0ULL;
    pt("SETSIGMASK all", ptrace(PTRACE_SETSIGMASK, pid, 8, &m));
    ptrace(PTRACE_GETSIGMASK, pid, 8, &m);
    out("mask: %#llx", (unsigned long long)m);
    /* Unblock SIGUSR1: delivered (a signal-delivery stop) once resumed. */
    m = ~0ULL & ~(1ULL << (SIGUSR1 - 1));
    pt("SETSIGMASK without SIGUSR1", ptrace(PTRACE_SETSIGMASK, pid, 8, &m));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("stop 2", pid);
    list("own now", pid, 0, 0, 8);
    pt("CONT suppressing", ptrace(PTRACE_CONT, pid, 0, 0));
    int st = pwait("end", pid);
    (void)st;
    pt("not a tracee", ptrace(PTRACE_GETSIGMASK, getpid(), 8, &m));

    /* During sigsuspend the mask to restore is reported. */
    pid = fork();
    if (pid == 0) {
        signal(SIGUSR1, on_usr1);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGUSR1);
        sigprocmask(SIG_SETMASK, &s, NULL);
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
            _exit(100);
        raise(SIGUSR1);   /* pending, blocked */
        sigemptyset(&s);
        sigaddset(&s, SIGTERM);
        sigsuspend(&s);   /* SIGUSR1 comes in here */
        sigset_t cur;
        sigprocmask(SIG_SETMASK, NULL, &cur);
        _exit(sigismember(&cur, SIGUSR1) + 2 * sigismember(&cur, SIGUSR2) + 4 * sigismember(&cur, SIGTERM) + 8 * handled);
    }
    pwait("sigsuspend stop", pid);
    m = 0;
    ptrace(PTRACE_GETSIGMASK, pid, 8, &m);
    out("mask in sigsuspend is the saved one: %s", yesno(m == 1ULL << (SIGUSR1 - 1)));
    m = 1ULL << (SIGUSR2 - 1);
    pt("SETSIGMASK SIGUSR2", ptrace(PTRACE_SETSIGMASK, pid, 8, &m));
    pt("CONT with SIGUSR1", ptrace(PTRACE_CONT, pid, 0, (void *)SIGUSR1));
    st = pwait("sigsuspend end", pid);
    if (WIFEXITED(st))
        out("usr1 blocked %d usr2 blocked %d term blocked %d handled %d", WEXITSTATUS(st) & 1, (WEXITSTATUS(st) >> 1) & 1,
            (WEXITSTATUS(st) >> 2) & 1, (WEXITSTATUS(st) >> 3) & 1);
    (void)mask_of;
    return 0;
}
