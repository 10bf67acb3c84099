/*
 * Kevlar's vDSO: the clock calls user space makes most often, answered in
 * user mode from the TSC and the parameters the kernel publishes in the
 * vvar page (mapped read-only just below this image). The arithmetic is
 * the kernel's own (platform/src/arch/x86_64/time.rs), so both give the
 * same readings. Anything else falls back to the system call.
 *
 * Built freestanding (no libc) into a small shared object; symbols carry
 * the version LINUX_2.6, which is what libcs look up.
 */

typedef unsigned long u64;
typedef long i64;
typedef unsigned int u32;

struct vvar {
    u64 seq;             /* odd while the kernel changes the next three */
    u64 base_tsc;        /* the monotonic clock reads base_ns at base_tsc */
    u64 base_ns;
    u64 ns_per_cycle_fp; /* 32.32 fixed point */
    u64 wall_at_origin_ns;
    u64 ready;
};

struct timespec_k { i64 tv_sec; i64 tv_nsec; };
struct timeval_k { i64 tv_sec; i64 tv_usec; };

/* Placed by the linker script one page below the image. */
extern const volatile struct vvar vvar_page __attribute__((visibility("hidden")));

#define NSEC_PER_SEC 1000000000UL

/* Clock ids, as in <linux/time.h>. */
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_BOOTTIME 7
#define CLOCK_TAI 11

#define NR_gettimeofday 96
#define NR_time 201
#define NR_clock_gettime 228
#define NR_clock_getres 229
#define NR_getcpu 309

static long syscall3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}

static u64 rdtsc(void)
{
    u32 lo, hi;
    /* lfence: the TSC is read after the loads before it (the sequence
     * count), as the kernel's parameters require. */
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((u64)hi << 32) | lo;
}

/* The kernel's sequence lock (time.rs): retry while the count is odd or
 * changed under us. A TSC behind the base reads as the base. */
static u64 monotonic_ns(void)
{
    for (;;) {
        u64 seq = vvar_page.seq;
        if (seq & 1) {
            __asm__ volatile("pause");
            continue;
        }
        u64 base_tsc = vvar_page.base_tsc;
        u64 base_ns = vvar_page.base_ns;
        u64 fp = vvar_page.ns_per_cycle_fp;
        u64 tsc = rdtsc();
        if (vvar_page.seq != seq)
            continue;
        u64 delta = tsc > base_tsc ? tsc - base_tsc : 0;
        return base_ns + (u64)(((unsigned __int128)delta * fp) >> 32);
    }
}

/* Returns 0 and the reading for the clocks answered here, -1 otherwise. */
static int read_clock(long clock, u64 *ns)
{
    if (!vvar_page.ready)
        return -1;
    switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:
        *ns = vvar_page.wall_at_origin_ns + monotonic_ns();
        return 0;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        *ns = monotonic_ns();
        return 0;
    default:
        return -1;
    }
}

int __vdso_clock_gettime(long clock, struct timespec_k *ts)
{
    u64 ns;
    if (read_clock(clock, &ns) != 0)
        return (int)syscall3(NR_clock_gettime, clock, (long)ts, 0);
    ts->tv_sec = (i64)(ns / NSEC_PER_SEC);
    ts->tv_nsec = (i64)(ns % NSEC_PER_SEC);
    return 0;
}

int __vdso_gettimeofday(struct timeval_k *tv, void *tz)
{
    u64 ns;
    if (tz || read_clock(CLOCK_REALTIME, &ns) != 0)
        return (int)syscall3(NR_gettimeofday, (long)tv, (long)tz, 0);
    if (tv) {
        tv->tv_sec = (i64)(ns / NSEC_PER_SEC);
        tv->tv_usec = (i64)(ns % NSEC_PER_SEC / 1000);
    }
    return 0;
}

long __vdso_time(long *t)
{
    u64 ns;
    if (read_clock(CLOCK_REALTIME, &ns) != 0)
        return syscall3(NR_time, (long)t, 0, 0);
    long secs = (long)(ns / NSEC_PER_SEC);
    if (t)
        *t = secs;
    return secs;
}

int __vdso_clock_getres(long clock, struct timespec_k *res)
{
    return (int)syscall3(NR_clock_getres, clock, (long)res, 0);
}

long __vdso_getcpu(unsigned *cpu, unsigned *node, void *unused)
{
    return syscall3(NR_getcpu, (long)cpu, (long)node, (long)unused);
}

/* The unprefixed names some programs look up. */
int clock_gettime(long, struct timespec_k *) __attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct timeval_k *, void *) __attribute__((weak, alias("__vdso_gettimeofday")));
long time(long *) __attribute__((weak, alias("__vdso_time")));
int clock_getres(long, struct timespec_k *) __attribute__((weak, alias("__vdso_clock_getres")));
long getcpu(unsigned *, unsigned *, void *) __attribute__((weak, alias("__vdso_getcpu")));
