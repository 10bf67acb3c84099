/* Privileged operations as uid 1000, without capabilities and with the one
 * Linux asks for: binding ports below 1024 (CAP_NET_BIND_SERVICE, EACCES),
 * raw sockets (CAP_NET_RAW, EPERM), setting the clock (CAP_SYS_TIME),
 * sethostname/setdomainname, mount and umount (CAP_SYS_ADMIN), device
 * nodes (CAP_MKNOD), reboot (CAP_SYS_BOOT), chroot (CAP_SYS_CHROOT), a
 * negative nice value and real-time scheduling (CAP_SYS_NICE), a higher
 * hard limit (CAP_SYS_RESOURCE), SO_PRIORITY above 6 (CAP_NET_ADMIN),
 * signalling root (CAP_KILL), reading the kernel log (CAP_SYSLOG), I/O
 * ports (iopl/ioperm: their argument checks and EPERM). Each attempt runs
 * in its own child. */
#include "perm.h"
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

static long bind_port(int type, int port)
{
    int fd = socket(AF_INET, type, 0);
    if (fd < 0)
        return -errno;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY) };
    long r = rawsys(SYS_bind, fd, (long)&a, sizeof a, 0, 0, 0);
    close(fd);
    return r;
}

static long op_tcp80(void) { return bind_port(SOCK_STREAM, 80); }
static long op_udp1023(void) { return bind_port(SOCK_DGRAM, 1023); }
static long op_udp1024(void) { return bind_port(SOCK_DGRAM, 1024); }
static long op_raw(void)
{
    long r = rawsys(SYS_socket, AF_INET, SOCK_RAW, 1 /* IPPROTO_ICMP */, 0, 0, 0);
    if (r >= 0)
        close((int)r);
    return r < 0 ? r : 0;
}
static long op_clock_settime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return rawsys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts, 0, 0, 0, 0);
}
static long op_settimeofday(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return rawsys(SYS_settimeofday, (long)&tv, 0, 0, 0, 0, 0);
}
static long op_settimeofday_bad_zone(void)
{
    int tz[2] = { 16 * 60, 0 };
    return rawsys(SYS_settimeofday, 0, (long)tz, 0, 0, 0, 0);
}
static long op_settimeofday_bad_usec(void)
{
    long tv[2] = { 1000, 1000000 };
    return rawsys(SYS_settimeofday, (long)tv, 0, 0, 0, 0, 0);
}
static long op_sethostname(void)
{
    char name[65] = "";
    gethostname(name, sizeof name);
    return rawsys(SYS_sethostname, (long)name, strlen(name), 0, 0, 0, 0);
}
static long op_setdomainname(void)
{
    return rawsys(SYS_setdomainname, (long)"(none)", 6, 0, 0, 0, 0);
}
static long op_mount(void)
{
    long r = rawsys(SYS_mount, (long)"none", (long)"m", (long)"tmpfs", 0, 0, 0);
    if (r == 0)
        r = rawsys(SYS_umount2, (long)"m", 0, 0, 0, 0, 0);
    return r;
}
static long op_umount(void) { return rawsys(SYS_umount2, (long)"held", 0, 0, 0, 0, 0); }
static long op_mknod_chr(void) { return rawsys(SYS_mknodat, AT_FDCWD, (long)"w/null", S_IFCHR | 0600, makedev(1, 3), 0, 0); }
static long op_mknod_blk(void) { return rawsys(SYS_mknodat, AT_FDCWD, (long)"w/disk", S_IFBLK | 0600, makedev(254, 0), 0, 0); }
static long op_mknod_whiteout(void) { return rawsys(SYS_mknodat, AT_FDCWD, (long)"w/whiteout", S_IFCHR | 0600, 0, 0, 0); }
static long op_mknod_fifo(void) { return rawsys(SYS_mknodat, AT_FDCWD, (long)"w/fifo", S_IFIFO | 0600, 0, 0, 0); }
static long op_mknod_chr_readonly_dir(void) { return rawsys(SYS_mknodat, AT_FDCWD, (long)"null", S_IFCHR | 0600, makedev(1, 3), 0, 0); }
static long op_reboot(void) { return rawsys(SYS_reboot, 1, 2, 3, 0, 0, 0); }
static long op_chroot(void) { return rawsys(SYS_chroot, (long)".", 0, 0, 0, 0, 0); }
static long op_nice(void) { return rawsys(SYS_setpriority, PRIO_PROCESS, 0, -1, 0, 0, 0); }
static long op_fifo(void)
{
    int prio = 1;
    return rawsys(SYS_sched_setscheduler, 0, SCHED_FIFO, (long)&prio, 0, 0, 0);
}
static long op_hard_limit(void)
{
    uint64_t lim[2];
    rawsys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)lim, 0, 0);
    lim[1] += 1;
    return rawsys(SYS_setrlimit, RLIMIT_NOFILE, (long)lim, 0, 0, 0, 0);
}
static long op_so_priority(void)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    int v = 7;
    long r = rawsys(SYS_setsockopt, fd, SOL_SOCKET, SO_PRIORITY, (long)&v, sizeof v, 0);
    close(fd);
    return r;
}
static long op_kill_init(void) { return rawsys(SYS_kill, 1, 0, 0, 0, 0, 0); }
static long op_syslog(void)
{
    long r = rawsys(SYS_syslog, 9 /* SYSLOG_ACTION_SIZE_UNREAD */, 0, 0, 0, 0, 0);
    return r < 0 ? r : 0;
}
static long op_syslog_size(void)
{
    long r = rawsys(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, 0, 0, 0, 0, 0);
    return r < 0 ? r : 0;
}
static long op_iopl3(void) { return rawsys(SYS_iopl, 3, 0, 0, 0, 0, 0); }
static long op_iopl0(void) { return rawsys(SYS_iopl, 0, 0, 0, 0, 0, 0); }
static long op_iopl4(void) { return rawsys(SYS_iopl, 4, 0, 0, 0, 0, 0); }
static long op_ioperm_on(void) { return rawsys(SYS_ioperm, 0x80, 1, 1, 0, 0, 0); }
static long op_ioperm_off(void) { return rawsys(SYS_ioperm, 0x80, 1, 0, 0, 0, 0); }
static long op_ioperm_empty(void) { return rawsys(SYS_ioperm, 0x80, 0, 1, 0, 0, 0); }
static long op_ioperm_beyond(void) { return rawsys(SYS_ioperm, 65535, 2, 0, 0, 0, 0); }

static const struct op {
    const char *name;
    long (*fn)(void);
    int cap; /* the capability that allows it; NO_CAP: only tried without */
} ops[] = {
    { "bind TCP port 80", op_tcp80, CAP_NET_BIND_SERVICE_ },
    { "bind UDP port 1023", op_udp1023, CAP_NET_BIND_SERVICE_ },
    { "bind UDP port 1024", op_udp1024, NO_CAP },
    { "socket(SOCK_RAW)", op_raw, NO_CAP },
    { "clock_settime", op_clock_settime, CAP_SYS_TIME_ },
    { "settimeofday", op_settimeofday, CAP_SYS_TIME_ },
    { "settimeofday(zone 16 h)", op_settimeofday_bad_zone, CAP_SYS_TIME_ },
    { "settimeofday(usec 1000000)", op_settimeofday_bad_usec, CAP_SYS_TIME_ },
    { "sethostname", op_sethostname, CAP_SYS_ADMIN_ },
    { "setdomainname", op_setdomainname, CAP_SYS_ADMIN_ },
    { "mount tmpfs and umount", op_mount, CAP_SYS_ADMIN_ },
    { "umount root's mount", op_umount, NO_CAP },
    { "mknod char device", op_mknod_chr, CAP_MKNOD_ },
    { "mknod block device", op_mknod_blk, CAP_MKNOD_ },
    { "mknod whiteout", op_mknod_whiteout, NO_CAP },
    { "mknod fifo", op_mknod_fifo, NO_CAP },
    { "mknod char device, unwritable dir", op_mknod_chr_readonly_dir, CAP_MKNOD_ },
    { "reboot(bad magic)", op_reboot, CAP_SYS_BOOT_ },
    { "chroot", op_chroot, CAP_SYS_CHROOT_ },
    { "setpriority(-1)", op_nice, CAP_SYS_NICE_ },
    { "sched_setscheduler(SCHED_FIFO)", op_fifo, CAP_SYS_NICE_ },
    { "raise the hard limit", op_hard_limit, CAP_SYS_RESOURCE_ },
    { "SO_PRIORITY 7", op_so_priority, CAP_NET_ADMIN_ },
    { "kill(1, 0)", op_kill_init, CAP_KILL_ },
    { "syslog(SIZE_UNREAD)", op_syslog, CAP_SYSLOG_ },
    { "syslog(SIZE_BUFFER)", op_syslog_size, NO_CAP },
    { "iopl(3)", op_iopl3, NO_CAP },
    { "iopl(0)", op_iopl0, NO_CAP },
    { "iopl(4)", op_iopl4, NO_CAP },
    { "ioperm(0x80, 1, on)", op_ioperm_on, NO_CAP },
    { "ioperm(0x80, 1, off)", op_ioperm_off, NO_CAP },
    { "ioperm(0x80, 0, on)", op_ioperm_empty, NO_CAP },
    { "ioperm(65535, 2, off)", op_ioperm_beyond, NO_CAP },
};

static void run(long i)
{
    long r = ops[i].fn();
    out("    %s", r < 0 && r > -4096 ? errname((int)-r) : "ok");
}

int main(void)
{
    mkdir("m", 0755);
    mkdir("held", 0755);
    mkdir("w", 0777);
    chmod("w", 0777);
    if (mount("none", "held", "tmpfs", 0, NULL) != 0)
        out("mount held: %s", errname(errno));
    for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        out("%s", ops[i].name);
        out("  without capabilities:");
        as_user(NO_CAP, run, i);
        if (ops[i].cap != NO_CAP) {
            out("  with capability %d:", ops[i].cap);
            as_user(ops[i].cap, run, i);
        }
    }
    umount("held");
    return 0;
}
