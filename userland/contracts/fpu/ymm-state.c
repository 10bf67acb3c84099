/* The AVX state (ymm registers, upper halves included) is per process, as
 * on Linux: XSAVE is enabled (OSXSAVE, XCR0 with x87/SSE/AVX), ymm values
 * survive sched_yield with another process, or another thread of the
 * same process, busy on the same CPU, and
 * migrations between CPUs, fork copies them to the child, and execve
 * starts the new program with every ymm register zero and the default
 * MXCSR and x87 control word. */
#include "ymm.h"
#include <pthread.h>
#include <sched.h>
#include <sys/auxv.h>

static void pin(pid_t pid, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(pid, sizeof set, &set); /* cpu 1 fails at -smp 1 */
}

/* Yields `n` times with pattern `seed` live; returns whether it survived. */
static int yields_keep(uint64_t seed, long n)
{
    ymm_set in, out;
    ymm_pattern(&in, seed);
    ymm_syscall(&in, &out, SYS_sched_yield, 0, 0, n);
    return ymm_equal(&in, &out);
}

static void *thread_yields(void *arg)
{
    return (void *)(long)yields_keep((uint64_t)(long)arg, 3000);
}

static void exec_child(void)
{
    ymm_set now, zero;
    ymm_store(&now); /* first: nothing in the program has touched them */
    memset(&zero, 0, sizeof zero);
    unsigned mxcsr;
    unsigned short fcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));
    out("after exec: ymm all zero: %s", ymm_equal(&now, &zero) ? "yes" : "no");
    out("after exec: mxcsr %#x fcw %#x", mxcsr, fcw);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exec-child") == 0) {
        exec_child();
        return 0;
    }
    out("avx2 and osxsave: %s", cpu_has_avx2() ? "yes" : "no");
    /* Every user component Linux enables on this CPU (under QEMU's -cpu
     * max: x87, SSE, AVX, the MPX registers and PKRU). */
    out("xcr0: %#llx", (unsigned long long)xgetbv0());
    unsigned size = cpuid_xsave_size();
    /* Linux's AT_MINSIGSTKSZ: the largest frame struct (sigframe_ia32,
     * 732 bytes, on a kernel with IA32 emulation) + 15 of frame alignment
     * + the XSAVE area + FP_XSTATE_MAGIC2 (4) + an fsave header (112) + 63
     * of XSAVE alignment, rounded up to 16. */
    unsigned long expect = (732 + 15 + size + 4 + 112 + 63 + 15) & ~15ul;
    out("AT_MINSIGSTKSZ is Linux's size for the CPUID XSAVE size: %s",
        getauxval(AT_MINSIGSTKSZ) == expect ? "yes" : "no");

    /* Two processes on one CPU, each yielding with its own ymm values. */
    pin(0, 0);
    pid_t busy = fork();
    if (busy == 0)
        _exit(yields_keep(2, 3000) ? 0 : 1);
    int ok = yields_keep(1, 3000);
    int st;
    waitpid(busy, &st, 0);
    out("ymm kept across yields: %s", ok ? "yes" : "no");
    out("busy sibling's ymm kept: %s", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");

    /* Two threads of one process on one CPU: the state is per thread. */
    pthread_t thread;
    pthread_create(&thread, NULL, thread_yields, (void *)7L);
    ok = yields_keep(8, 3000);
    void *thread_ok;
    pthread_join(thread, &thread_ok);
    out("ymm kept across yields between threads: %s and %s", ok ? "yes" : "no", thread_ok ? "yes" : "no");

    /* Moved between CPUs (at -smp 2) while yielding with ymm live. */
    pid_t mover = fork();
    if (mover == 0)
        _exit(yields_keep(3, 4000) ? 0 : 1);
    for (int i = 0; waitpid(mover, &st, WNOHANG) == 0; i++) {
        pin(mover, i & 1);
        sched_yield();
    }
    out("ymm kept across migrations: %s", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 2; c++)
        CPU_SET(c, &all);
    sched_setaffinity(0, sizeof all, &all);

    /* fork (the raw call) with ymm live: both sides keep them. */
    ymm_set in, after;
    ymm_pattern(&in, 4);
    long r = ymm_syscall(&in, &after, SYS_fork, 0, 0, 1);
    if (r == 0)
        _exit(ymm_equal(&in, &after) ? 0 : 1);
    out("parent keeps ymm over fork: %s", ymm_equal(&in, &after) ? "yes" : "no");
    waitpid(r, &st, 0);
    out("child starts with parent's ymm: %s", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");

    /* execve with ymm live (and a changed MXCSR): the new image starts clean. */
    pid_t ex = fork();
    if (ex == 0) {
        unsigned rz = 0x7f80;
        __asm__ volatile("ldmxcsr %0" ::"m"(rz));
        static char *args[3];
        args[0] = argv[0];
        args[1] = "exec-child";
        ymm_pattern(&in, 5);
        ymm_syscall(&in, &after, SYS_execve, (long)argv[0], (long)args, 1);
        _exit(127);
    }
    waitpid(ex, &st, 0);
    out("exec child status: %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
