/* PID 1 that measures reading the mount table as it grows (run under
 * `-icount shift=0,sleep=off`, where guest time counts instructions, so
 * the figures are deterministic): in a tmpfs on /t, binds of one
 * directory on 10,000 directories ("flat"), then 10,000 binds stacked on
 * one directory ("stacked"), with the guest time of one full read of
 * /proc/self/mountinfo (and of one bind mount) at 1,000, 2,000, 5,000
 * and 10,000 mounts (argv[1] sets another count: `make test` runs 2,000,
 * which a stack of the old limit of 1,024 did not reach). Prints `MOUNTS <kind> mounts=N read_ns=T bind_ns=B`,
 * then `MOUNTS-SCALE ok` (or `MOUNTS-SCALE failed: ...`) and powers off. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How many mounts of each kind (argv[1], default 10,000). */
static int TOP = 10000;

static long long now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Reads /proc/self/mountinfo whole; returns its lines. */
static long read_table(void)
{
    static char buf[1 << 16];
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    if (fd < 0)
        return -1;
    long lines = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            lines += buf[i] == '\n';
    close(fd);
    return lines;
}

static int checkpoint(int made)
{
    return made == 1000 || made == 2000 || made == 5000 || made == TOP;
}

static void report(const char *kind, int made, long long bind_ns)
{
    long long t0 = now();
    long lines = read_table();
    long long t1 = now();
    printf("MOUNTS %s mounts=%d lines=%ld read_ns=%lld bind_ns=%lld\n", kind, made, lines, t1 - t0, bind_ns);
    fflush(stdout);
}

static const char *run(void)
{
    mkdir("/proc", 0555);
    if (mount("proc", "/proc", "proc", 0, NULL) != 0)
        return "mount proc";
    mkdir("/t", 0755);
    if (mount("none", "/t", "tmpfs", 0, NULL) != 0)
        return "mount tmpfs";
    mkdir("/t/src", 0755);
    mkdir("/t/flat", 0755);
    char path[64];
    for (int i = 1; i <= TOP; i++) {
        snprintf(path, sizeof path, "/t/flat/%d", i);
        if (mkdir(path, 0755) != 0)
            return "mkdir";
        long long t0 = now();
        if (mount("/t/src", path, NULL, MS_BIND, NULL) != 0) {
            printf("MOUNTS flat bind %d: %s\n", i, strerror(errno));
            return "flat bind";
        }
        long long t1 = now();
        if (checkpoint(i))
            report("flat", i, t1 - t0);
    }
    /* The last made first. */
    for (int i = TOP; i >= 1; i--) {
        snprintf(path, sizeof path, "/t/flat/%d", i);
        if (umount(path) != 0)
            return "umount";
    }
    mkdir("/t/stack", 0755);
    for (int i = 1; i <= TOP; i++) {
        long long t0 = now();
        if (mount("/t/stack", "/t/stack", NULL, MS_BIND, NULL) != 0) {
            printf("MOUNTS stacked bind %d: %s\n", i, strerror(errno));
            return "stacked bind";
        }
        long long t1 = now();
        if (checkpoint(i))
            report("stacked", i, t1 - t0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && atoi(argv[1]) > 0)
        TOP = atoi(argv[1]);
    const char *failed = run();
    if (failed)
        printf("MOUNTS-SCALE failed: %s\n", failed);
    else
        printf("MOUNTS-SCALE ok\n");
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
