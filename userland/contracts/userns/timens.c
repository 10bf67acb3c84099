/* Time namespaces: unshare(CLONE_NEWTIME) leaves the caller where it is
 * and sends its children to a new one, whose offsets
 * /proc/self/timens_offsets shows and takes (malformed lines EINVAL) until
 * a child enters it (EACCES after); a child there reads CLOCK_MONOTONIC
 * and CLOCK_BOOTTIME (by clock_gettime through the vDSO and by the
 * system call) and /proc/uptime moved by the offsets, CLOCK_REALTIME
 * unchanged; a CLONE_VM child cannot go there (EINVAL); uid 1000 cannot
 * unshare one (EPERM). */
#include "../common.h"
#include <fcntl.h>
#include <grp.h>
#include <sched.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

static int wr(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

static void cat(const char *path)
{
    char buf[256];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read_full(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    buf[n] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        out("%s: [%s]", path, line);
}

static long long raw_ns(clockid_t c)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, c, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double uptime(void)
{
    char buf[64] = {0};
    int fd = open("/proc/uptime", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    return atof(buf);
}

int main(void)
{
    pid_t q = fork();
    if (q == 0) {
        if (setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        check("uid 1000 unshare(CLONE_NEWTIME)", unshare(CLONE_NEWTIME));
        _exit(0);
    }
    reap("uid 1000", q);

    long long mono0 = now_ns(CLOCK_MONOTONIC), boot0 = now_ns(CLOCK_BOOTTIME), real0 = now_ns(CLOCK_REALTIME);
    double up0 = uptime();
    cat("/proc/self/timens_offsets");
    check("unshare(CLONE_NEWTIME)", unshare(CLONE_NEWTIME));
    out("caller's clock unchanged: %s", yesno(now_ns(CLOCK_MONOTONIC) - mono0 < 100000000000LL));
    cat("/proc/self/timens_offsets");
    out("write \"realtime 1 0\": %s", wr("/proc/self/timens_offsets", "realtime 1 0") < 0 ? errname(errno) : "ok");
    out("write \"monotonic 1 2000000000\": %s", wr("/proc/self/timens_offsets", "monotonic 1 2000000000") < 0 ? errname(errno) : "ok");
    out("write \"monotonic x\": %s", wr("/proc/self/timens_offsets", "monotonic x") < 0 ? errname(errno) : "ok");
    out("write offsets: %s", wr("/proc/self/timens_offsets", "monotonic 100000 0\nboottime 200000 5") < 0 ? errname(errno) : "ok");
    cat("/proc/self/timens_offsets");
    long r = syscall(SYS_clone, CLONE_VM | SIGCHLD, 0, 0, 0, 0);
    if (r == 0)
        _exit(0);
    out("clone(CLONE_VM) into it: %s", r < 0 ? errname(errno) : "ok");
    if (r > 0)
        waitpid(r, NULL, 0);
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        long long mono = now_ns(CLOCK_MONOTONIC) - mono0, boot = now_ns(CLOCK_BOOTTIME) - boot0;
        long long rmono = raw_ns(CLOCK_MONOTONIC) - mono0, rboot = raw_ns(CLOCK_BOOTTIME) - boot0;
        long long real = now_ns(CLOCK_REALTIME) - real0;
        double up = uptime() - up0;
        out("child monotonic moved by about 100000 s: %s", yesno(mono >= 100000000000000LL && mono < 100000000000000LL + 60000000000LL));
        out("child boottime moved by about 200000 s: %s", yesno(boot >= 200000000000000LL && boot < 200000000000000LL + 60000000000LL));
        out("same by the system call: %s %s", yesno(rmono >= 100000000000000LL && rmono < 100000000000000LL + 60000000000LL), yesno(rboot >= 200000000000000LL && rboot < 200000000000000LL + 60000000000LL));
        out("child realtime unchanged: %s", yesno(real >= 0 && real < 60000000000LL));
        out("child /proc/uptime moved: %s", yesno(up >= 200000 && up < 200060));
        cat("/proc/self/timens_offsets");
        write(p[1], "x", 1);
        _exit(0);
    }
    char c;
    read(p[0], &c, 1);
    out("write after a child entered: %s", wr("/proc/self/timens_offsets", "monotonic 5 0") < 0 ? errname(errno) : "ok");
    reap("child", pid);
    return 0;
}
