/* Kevlar-only check of the clocks against the host's (tools/clock-test.py
 * drives it; Linux has nothing to compare with: the check is against real
 * time). Run as init=/clock. Prints `CLOCK-READY`, then answers each line
 * read from the console:
 *
 *   s   `CLOCK <mono vDSO> <mono syscall> <real vDSO> <real syscall>` (ns)
 *   q   `CLOCK-STEADY ok` (or what went backwards), then powers off
 *
 * Between lines it reads CLOCK_MONOTONIC over and over, through the vDSO
 * and through the system call in turn, and remembers whether a reading
 * was ever below the one before it: the clock is steered while it runs,
 * and steering must never step it back. With two CPUs a second process
 * does the same on the other CPU, and reports in its exit status. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ns_of(const struct timespec *ts)
{
    return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static long long vdso_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts); /* musl calls the vDSO when there is one */
    return ns_of(&ts);
}

static long long sys_ns(clockid_t clock)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, clock, &ts);
    return ns_of(&ts);
}

/* Readings of CLOCK_MONOTONIC, alternating vDSO and system call; returns
 * how far a reading fell below the one before it, at worst (0: never). */
static long long watch(long long *last, long rounds)
{
    long long worst = 0;
    for (long i = 0; i < rounds; i++) {
        long long now = (i & 1) ? sys_ns(CLOCK_MONOTONIC) : vdso_ns(CLOCK_MONOTONIC);
        if (now < *last && *last - now > worst)
            worst = *last - now;
        if (now > *last)
            *last = now;
    }
    return worst;
}

int main(void)
{
    long long last = 0, worst = 0;
    pid_t helper = -1;
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        helper = fork();
        if (helper == 0) {
            long long mine = 0, bad = 0;
            for (;;) {
                long long w = watch(&mine, 1000);
                if (w > bad) {
                    bad = w;
                    dprintf(1, "CLOCK-BACKWARDS helper %lld ns\n", bad);
                }
            }
        }
    }
    printf("CLOCK-READY\n");
    fflush(stdout);
    char line[64];
    for (;;) {
        struct pollfd p = {.fd = 0, .events = POLLIN};
        while (poll(&p, 1, 0) == 0) {
            long long w = watch(&last, 1000);
            if (w > worst)
                worst = w;
        }
        if (!fgets(line, sizeof line, stdin))
            break;
        if (line[0] == 's') {
            long long mv = vdso_ns(CLOCK_MONOTONIC), ms = sys_ns(CLOCK_MONOTONIC);
            long long rv = vdso_ns(CLOCK_REALTIME), rs = sys_ns(CLOCK_REALTIME);
            printf("CLOCK %lld %lld %lld %lld\n", mv, ms, rv, rs);
            fflush(stdout);
        } else if (line[0] == 'q') {
            break;
        }
    }
    if (helper > 0)
        kill(helper, SIGKILL);
    if (worst == 0)
        printf("CLOCK-STEADY ok\n");
    else
        printf("CLOCK-STEADY went back %lld ns\n", worst);
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
