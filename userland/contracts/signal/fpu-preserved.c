/* Floating-point and SSE state survive signal delivery: a periodic timer
 * interrupts a long floating-point computation whose handler clobbers the
 * FPU/SSE registers; the result must equal the same computation done with
 * no signals. Also the handler starts with a clean, default MXCSR, and a
 * forked child continues with the parent's FP state. */
#include "common.h"
#include <sys/time.h>

static volatile int ticks;
static volatile double sink;
static volatile unsigned handler_mxcsr;

static void clobber(int s)
{
    (void)s;
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    handler_mxcsr = m;
    double a = 1.0;
    for (int i = 0; i < 200; i++)
        a = a * 1.0000001 + 3.25 / (i + 1);
    /* Scribble over the vector registers and change rounding mode. */
    __asm__ volatile("xorps %%xmm0, %%xmm0\n\t"
                     "pcmpeqd %%xmm1, %%xmm1\n\t"
                     "movaps %%xmm1, %%xmm2\n\t"
                     "movaps %%xmm1, %%xmm7\n\t"
                     "movaps %%xmm1, %%xmm15\n\t" ::: "xmm0", "xmm1", "xmm2", "xmm7", "xmm15");
    unsigned rz = 0x7f80; /* round toward zero, all exceptions masked */
    __asm__ volatile("ldmxcsr %0" ::"m"(rz));
    sink = a;
    ticks++;
}

static volatile long n_iter = 300000;

static __attribute__((noinline)) double compute(long n)
{
    double x = 0.5, y = 1.0, z = 0.0;
    for (long i = 1; i <= n; i++) {
        x = x * 1.000000001 + 1.0 / (double)i;
        y = y * 0.999999999 + x * 1e-9;
        z += x / (y + (double)i);
    }
    return x + y * 3.0 + z;
}

int main(void)
{
    double expect = compute(n_iter);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = clobber;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 2000}, {0, 2000}};
    setitimer(ITIMER_REAL, &it, NULL);
    int rounds = 0, wrong = 0;
    long long end = now_ns(CLOCK_MONOTONIC) + 3000000000LL;
    /* Repeat until the timer has interrupted computations many times. */
    do {
        if (compute(n_iter) != expect)
            wrong++;
        rounds++;
    } while (ticks < 20 && now_ns(CLOCK_MONOTONIC) < end);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    out("interrupted by the timer at least 5 times: %s", yesno(ticks >= 5));
    out("rounds with a different result: %d", wrong);
    out("MXCSR at handler entry: 0x%x", handler_mxcsr & 0xffc0);
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    out("MXCSR after the handlers: 0x%x", m & 0xffc0);
    /* Rounding mode set before fork is inherited. */
    unsigned rz = 0x7f80 | (m & 0x3f);
    __asm__ volatile("ldmxcsr %0" ::"m"(rz));
    pid_t pid = fork();
    if (pid == 0) {
        unsigned cm;
        __asm__ volatile("stmxcsr %0" : "=m"(cm));
        volatile double a = 2.0, b = 3.0;
        double q = a / b;
        uint64_t bits;
        memcpy(&bits, &q, 8);
        /* 2/3 is 0x3fe5555555555556 rounded to nearest, ...555 toward zero. */
        out("child MXCSR: 0x%x, 2/3 rounded toward zero: %s", cm & 0xffc0, yesno(bits == 0x3fe5555555555555ULL));
        _exit(0);
    }
    reap("child", pid);
    volatile double a = 2.0, b = 3.0;
    double q = a / b;
    uint64_t bits;
    memcpy(&bits, &q, 8);
    out("parent too: %s", yesno(bits == 0x3fe5555555555555ULL));
    return 0;
}
