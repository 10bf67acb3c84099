/* bench-init: PID 1 of the benchmark initramfs (tools/bench.py).
 *
 * Its first act is to read the clocks, so the figures below say when /init
 * started:
 *
 *     BOOT boottime_ns N     CLOCK_BOOTTIME at init start (the kernel's own
 *                            "time since boot"; see docs/benchmarks.md for
 *                            where each kernel's clock starts)
 *     BOOT monotonic_ns N    CLOCK_MONOTONIC at the same point
 *     BOOT tsc N             the time-stamp counter at the same point (under
 *                            QEMU TCG: guest time since the machine started,
 *                            firmware included)
 *     BOOT totalram_kib N    sysinfo() at init start
 *     BOOT freeram_kib N
 *     BOOT tsc_per_ns X      TSC ticks per CLOCK_MONOTONIC ns, measured over
 *                            the whole run (to convert `tsc` to time)
 *
 * Then it mounts devtmpfs, proc, sysfs and tmpfs (silently; Kevlar may not
 * have all of them), prints the kernel's identity (BENCH-KERNEL, from
 * uname), its command line and CPU-vulnerability mitigations when /proc and
 * /sys have them, runs `/bench/bench` with the words of /bench/args, prints
 * `BENCH-EXIT <exit N | signal N>` and powers off. It brings the loopback
 * interface up first (Linux leaves lo down until someone does; the
 * network benchmarks talk over 127.0.0.1).
 *
 * Disk mode (the application benchmarks): when the initramfs has
 * /bench/disk, it loads the kernel modules listed in /modules.list (Linux
 * needs virtio and ext4 as modules; Kevlar has them built in and no module
 * loader, so there every load fails, which is ignored), waits for /dev/vda,
 * mounts its ext4 file system read-write on /root with devtmpfs, devpts,
 * proc, sysfs and a tmpfs /tmp inside, chroots into it and runs
 * `/bin/bash /bench/apps.sh` with the words of /bench/args instead of
 * /bench/bench. A step that fails prints `BENCH-EXIT setup: ...` and
 * powers off.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../init/modules.h"
#include "say.h"

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* The first line of a small file, without its newline ("" if unreadable). */
static void first_line(const char *path, char *out, size_t len)
{
    out[0] = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = read(fd, out, len - 1);
    close(fd);
    if (n <= 0)
        return;
    out[n] = 0;
    out[strcspn(out, "\n")] = 0;
}

static void show_mitigations(void)
{
    const char *dir = "/sys/devices/system/cpu/vulnerabilities";
    DIR *d = opendir(dir);
    if (!d)
        return;
    /* Sorted output: read the names, then print them in order. */
    static char names[64][256];
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d)) && count < 64) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(names[count++], sizeof names[0], "%s", de->d_name);
    }
    closedir(d);
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    for (int i = 0; i < count; i++) {
        char path[320], text[256];
        snprintf(path, sizeof path, "%s/%.200s", dir, names[i]);
        first_line(path, text, sizeof text);
        say("BENCH-VULN %s: %s", names[i], text);
    }
}

/* ifconfig lo up: Linux gives lo 127.0.0.1/8 when it comes up. */
static void loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
            say("BENCH-NOTE lo up: errno %d", errno);
    }
    close(s);
}

#define DISK "/dev/vda"
#define NEWROOT "/root"

/* finit_module(2) on each module of /modules.list, in order. */

/* Disk mode's set-up; NULL on success, else what failed (errno is set). */
static const char *enter_disk_root(void)
{
    struct stat st;
    struct timespec tick = {0, 20 * 1000 * 1000};
    load_modules("/modules.list");
    for (int waited = 0; stat(DISK, &st) != 0 || !S_ISBLK(st.st_mode); waited += 20) {
        if (waited >= 10000) {
            errno = ENODEV;
            return "no " DISK;
        }
        nanosleep(&tick, NULL);
    }
    mkdir(NEWROOT, 0755);
    if (mount(DISK, NEWROOT, "ext4", 0, NULL) != 0)
        return "mount " DISK " (ext4) on " NEWROOT;
    if (mount("devtmpfs", NEWROOT "/dev", "devtmpfs", 0, NULL) != 0)
        return "mount devtmpfs";
    mkdir(NEWROOT "/dev/pts", 0755);
    mount("devpts", NEWROOT "/dev/pts", "devpts", 0, NULL);
    if (mount("proc", NEWROOT "/proc", "proc", 0, NULL) != 0)
        return "mount proc";
    mount("sysfs", NEWROOT "/sys", "sysfs", 0, NULL);
    if (mount("tmpfs", NEWROOT "/tmp", "tmpfs", 0, "mode=1777") != 0)
        return "mount tmpfs on /tmp";
    mkdir(NEWROOT "/run", 0755);
    mount("tmpfs", NEWROOT "/run", "tmpfs", 0, "mode=755");
    if (chdir(NEWROOT) != 0 || chroot(".") != 0 || chdir("/") != 0)
        return "chroot " NEWROOT;
    return NULL;
}

int main(void)
{
    struct timespec boot, mono;
    uint64_t tsc0 = rdtsc();
    clock_gettime(CLOCK_BOOTTIME, &boot);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    struct sysinfo si;
    int have_si = sysinfo(&si) == 0;

    if (fcntl(1, F_GETFD) < 0) {
        int fd = open("/dev/console", O_RDWR | O_NOCTTY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            if (fd > 2)
                close(fd);
        }
    }
    mkdir("/dev", 0755);
    mkdir("/proc", 0555);
    mkdir("/sys", 0555);
    mkdir("/tmp", 01777);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    mount("proc", "/proc", "proc", 0, NULL);
    mount("sysfs", "/sys", "sysfs", 0, NULL);
    mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
    chdir("/");
    umask(022);

    say("BOOT boottime_ns %llu", (unsigned long long)ts_ns(&boot));
    say("BOOT monotonic_ns %llu", (unsigned long long)ts_ns(&mono));
    say("BOOT tsc %llu", (unsigned long long)tsc0);
    if (have_si) {
        say("BOOT totalram_kib %llu", (unsigned long long)si.totalram * si.mem_unit / 1024);
        say("BOOT freeram_kib %llu", (unsigned long long)si.freeram * si.mem_unit / 1024);
    }
    struct utsname u;
    if (uname(&u) == 0)
        say("BENCH-KERNEL %s %s %s", u.sysname, u.release, u.version);
    char text[512];
    first_line("/proc/cmdline", text, sizeof text);
    if (text[0])
        say("BENCH-CMDLINE %s", text);
    show_mitigations();
    loopback_up();
    struct stat dst;
    int disk_mode = stat("/bench/disk", &dst) == 0;

    /* The benchmark's arguments: the words of /bench/args. */
    char args[256];
    char *argv[20] = {"/bench/bench"};
    int argc = 1;
    first_line("/bench/args", args, sizeof args);
    if (disk_mode) {
        const char *failed = enter_disk_root();
        if (failed) {
            say("BENCH-EXIT setup: %s: errno %d", failed, errno);
            sync();
            reboot(RB_POWER_OFF);
            return 1;
        }
        argv[0] = "/bin/bash";
        argv[1] = "/bench/apps.sh";
        argc = 2;
    }
    for (char *w = strtok(args, " \t"); w && argc < 19; w = strtok(NULL, " \t"))
        argv[argc++] = w;
    argv[argc] = NULL;
    char *envp_initramfs[] = {"PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/", "LANG=C", NULL};
    char *envp_disk[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                         "HOME=/root", "LANG=C", "USER=root", "LOGNAME=root", NULL};
    char **envp = disk_mode ? envp_disk : envp_initramfs;

    pid_t pid = fork();
    if (pid == 0) {
        execve(argv[0], argv, envp);
        say("BENCH-EXEC-FAILED errno %d", errno);
        _exit(127);
    }
    int st = 0;
    if (pid < 0) {
        say("BENCH-EXIT fork failed errno %d", errno);
    } else {
        pid_t r;
        /* Reap orphans too; stop when the benchmark itself is done. */
        while ((r = wait(&st)) != pid)
            if (r < 0 && errno != EINTR)
                break;
        if (WIFSIGNALED(st))
            say("BENCH-EXIT signal %d", WTERMSIG(st));
        else
            say("BENCH-EXIT exit %d", WEXITSTATUS(st));
    }

    struct timespec end;
    uint64_t tsc1 = rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &end);
    uint64_t dt = ts_ns(&end) - ts_ns(&mono);
    if (dt > 0)
        say("BOOT tsc_per_ns %.6f", (double)(tsc1 - tsc0) / (double)dt);

    if (getpid() != 1)
        return 0;
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
