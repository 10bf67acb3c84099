/* Signals through glibc's wrappers: sigaction with SA_SIGINFO (si_code,
 * si_addr of a fault), sigsetjmp/siglongjmp out of a SIGSEGV handler with
 * the mask restored, raise and abort, sigprocmask and sigpending, a
 * handler on an alternate stack of sysconf(_SC_SIGSTKSZ) bytes, sigqueue
 * values, psignal-style names, and SA_RESTART on a read from a pipe. */
#include "common.h"
#include <setjmp.h>
#include <sys/mman.h>

static sigjmp_buf jb;
static volatile void *fault_addr;
static volatile int fault_code;
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    fault_addr = si->si_addr;
    fault_code = si->si_code;
    siglongjmp(jb, 1);
}

static volatile int on_alt;
static char *alt_base;
static size_t alt_size;
static void on_usr1(int sig)
{
    char here;
    on_alt = (&here >= alt_base && &here < alt_base + alt_size);
    (void)sig;
}

static volatile int queued_value;
static void on_rt(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    queued_value = si->si_value.sival_int;
}

static void on_alarm(int sig) { (void)sig; }

int main(void)
{
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sigsetjmp(jb, 1) == 0) {
        page[10] = 1;
        out("no fault");
    } else {
        out("SIGSEGV on a read-only page: code %s, address right: %s",
            fault_code == SEGV_ACCERR ? "SEGV_ACCERR" : "other", fault_addr == page + 10 ? "yes" : "no");
    }
    if (sigsetjmp(jb, 1) == 0) {
        volatile uintptr_t low = 16; /* unmapped; volatile hides it from -Warray-bounds */
        *(volatile int *)low = 1;
    } else {
        out("SIGSEGV at 16: code %s", fault_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other");
    }
    sigset_t cur;
    sigprocmask(SIG_SETMASK, NULL, &cur);
    out("SIGSEGV unblocked after siglongjmp: %s", sigismember(&cur, SIGSEGV) ? "no" : "yes");

    /* Blocked, pending, then delivered on unblock. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    alt_size = sysconf(_SC_SIGSTKSZ);
    out("_SC_SIGSTKSZ >= MINSIGSTKSZ: %s", alt_size >= (size_t)sysconf(_SC_MINSIGSTKSZ) ? "yes" : "no");
    alt_base = malloc(alt_size);
    stack_t ss = { .ss_sp = alt_base, .ss_size = alt_size };
    out("sigaltstack: %d", sigaltstack(&ss, NULL));
    struct sigaction su = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };
    sigaction(SIGUSR1, &su, NULL);
    raise(SIGUSR1);
    sigset_t pend;
    sigpending(&pend);
    out("pending while blocked: %d", sigismember(&pend, SIGUSR1));
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    out("handled on the alternate stack: %s", on_alt ? "yes" : "no");
    /* The smallest stack glibc says a handler needs (the kernel's
     * AT_MINSIGSTKSZ; sigaltstack wants at least MINSIGSTKSZ) holds the
     * kernel's frame. */
    size_t min = sysconf(_SC_MINSIGSTKSZ);
    if (min < MINSIGSTKSZ)
        min = MINSIGSTKSZ;
    char *small = malloc(min);
    stack_t ms = { .ss_sp = small, .ss_size = min };
    out("sigaltstack of max(_SC_MINSIGSTKSZ, MINSIGSTKSZ) bytes: %d", sigaltstack(&ms, NULL));
    alt_base = small;
    alt_size = min;
    on_alt = 0;
    raise(SIGUSR1);
    out("handled on it: %s", on_alt ? "yes" : "no");

    struct sigaction sr = { .sa_sigaction = on_rt, .sa_flags = SA_SIGINFO };
    sigaction(SIGRTMIN + 1, &sr, NULL);
    union sigval val = { .sival_int = 4242 };
    out("sigqueue: %d", sigqueue(getpid(), SIGRTMIN + 1, val));
    out("value received: %d", queued_value);

    /* SA_RESTART: a read interrupted by SIGALRM resumes and gets the data. */
    int p[2];
    pipe(p);
    struct sigaction sal = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
    sigaction(SIGALRM, &sal, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        usleep(300000);
        write(p[1], "z", 1);
        _exit(0);
    }
    ualarm(100000, 0);
    char c = 0;
    ssize_t r = read(p[0], &c, 1);
    out("read across SA_RESTART alarm: %zd %c", r, c);
    waitpid(pid, NULL, 0);
    sal.sa_flags = 0;
    sigaction(SIGALRM, &sal, NULL);
    ualarm(100000, 0);
    r = read(p[0], &c, 1);
    out("read without SA_RESTART: %zd %s", r, errname(errno));

    pid = fork();
    if (pid == 0)
        abort();
    int st;
    waitpid(pid, &st, 0);
    out("abort: killed by %s", signame(WTERMSIG(st)));
    out("sigabbrev_np(SIGTERM): %s, strsignal(SIGRTMIN+1): %s", sigabbrev_np(SIGTERM), strsignal(SIGRTMIN + 1));
    return 0;
}
