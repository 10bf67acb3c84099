/*
 * boot-clock: where CLOCK_MONOTONIC's zero lies on the machine's time line,
 * for the boot suite of tools/bench.py (docs/benchmarks.md).
 *
 * Under QEMU's TCG the time-stamp counter counts from the machine's reset
 * (guest nanoseconds under icount, host ticks otherwise), while each
 * kernel's CLOCK_MONOTONIC starts somewhere in its own boot (Linux's after
 * the firmware and its decompressor). Two readings of both, 100 ms apart,
 * give the counter's rate and so the time from reset to the clock's zero;
 * the boot's timestamps (systemd's, getty's, all on CLOCK_MONOTONIC) then
 * become times since power-on, the same way on both kernels.
 *
 * Prints one line:  BOOT-CLOCK <tsc1> <mono_ns1> <tsc2> <mono_ns2>
 *
 * No libc: the host types it into the guest's shell (base64 over the serial
 * console), so it is kept to a few hundred bytes.
 */
#include <stdint.h>

#define SYS_write 1
#define SYS_nanosleep 35
#define SYS_exit 60
#define SYS_clock_gettime 228
#define CLOCK_MONOTONIC 1

struct ts {
    long sec, nsec;
};

static long syscall3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t monotonic_ns(void)
{
    struct ts t;
    if (syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t, 0) != 0)
        syscall3(SYS_exit, 1, 0, 0);
    return (uint64_t)t.sec * 1000000000u + (uint64_t)t.nsec;
}

static char *put(char *p, uint64_t v)
{
    char digits[20];
    int n = 0;
    *p++ = ' ';
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = digits[--n];
    return p;
}

__attribute__((force_align_arg_pointer)) void _start(void)
{
    static const char prefix[] = "BOOT-CLOCK";
    uint64_t v[4];
    struct ts pause = {0, 100000000};
    char line[128];
    char *p = line;

    for (const char *q = prefix; *q; q++)
        *p++ = *q;
    v[0] = rdtsc();
    v[1] = monotonic_ns();
    syscall3(SYS_nanosleep, (long)&pause, 0, 0);
    v[2] = rdtsc();
    v[3] = monotonic_ns();
    for (int i = 0; i < 4; i++)
        p = put(p, v[i]);
    *p++ = '\n';
    syscall3(SYS_write, 1, (long)line, p - line);
    syscall3(SYS_exit, 0, 0, 0);
    for (;;)
        ;
}
