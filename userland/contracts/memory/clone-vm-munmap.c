/* A CLONE_VM child spinning on a page, on another CPU when there is one,
 * must fault as soon as its parent unmaps the page or write-protects it:
 * the kernel has to flush every CPU's cached translation (TLB shootdown),
 * not only its own. */
#include "common.h"
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

static volatile int started;
static volatile int *page;
static int two_cpus;

/* With two CPUs, parent and child run on different ones, so the child's
 * translation stays cached while the parent changes the mapping. */
static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (two_cpus)
        sched_setaffinity(0, sizeof set, &set);
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    /* Only async-signal-safe calls: the child shares the parent's memory. */
    const char *msg = si->si_code == SEGV_MAPERR ? "child: SIGSEGV SEGV_MAPERR\n"
                    : si->si_code == SEGV_ACCERR ? "child: SIGSEGV SEGV_ACCERR\n"
                    : "child: SIGSEGV other\n";
    (void)sig;
    size_t n = 0;
    while (msg[n])
        n++;
    write(1, msg, n);
    _exit(0);
}

static int reader(void *arg)
{
    (void)arg;
    pin(1);
    started = 1;
    while (page[0] == 1)
        ;
    _exit(1);
}

static int writer(void *arg)
{
    (void)arg;
    pin(1);
    started = 1;
    for (;;)
        page[1]++;
    return 0;
}

static void run(const char *what, int (*fn)(void *), int protect)
{
    static char stack[2][64 * 1024] __attribute__((aligned(16)));
    static int round;
    page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    page[0] = 1;
    started = 0;
    pid_t pid = clone(fn, stack[round++] + sizeof stack[0], CLONE_VM | SIGCHLD, NULL);
    if (pid < 0) {
        out("clone: %s", errname(errno));
        return;
    }
    while (!started)
        ;
    msleep(20); /* let the child's loop run with the translation cached */
    /* Print only after the child is gone: its report comes first. */
    int rc = protect ? mprotect((void *)page, 4096, PROT_READ) : munmap((void *)page, 4096);
    int err = errno;
    int st;
    waitpid(pid, &st, 0);
    out("%s: %s, child %s", what, rc == 0 ? "ok" : errname(err), wstatus(st));
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    two_cpus = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    pin(0);
    run("munmap while read", reader, 0);
    run("mprotect while written", writer, 1);
    return 0;
}
