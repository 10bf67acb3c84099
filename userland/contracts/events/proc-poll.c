/* Which /proc, /sys and /dev/kmsg files epoll may watch, and what poll
 * says of them, as Linux 6.1: the /proc files with a poll method (every
 * file of /proc outside /proc/PID, every sysctl, every sysfs attribute)
 * are accepted and report DEFAULT_POLLMASK (IN OUT RDNORM WRNORM); the
 * /proc/PID files have none (EPERM), yet poll(2) says the same of them;
 * /proc/sys/kernel/hostname reports IN RDNORM ERR PRI once after the host
 * name changed; /dev/kmsg is readable while a record waits. */
#include "common.h"
#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mount.h>

static void show_poll(const char *label, int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT | POLLPRI | POLLRDNORM | POLLWRNORM};
    int n = poll(&p, 1, 0);
    out("%s: poll %d revents%s%s%s%s%s%s", label, n, p.revents & POLLIN ? " IN" : "",
        p.revents & POLLOUT ? " OUT" : "", p.revents & POLLRDNORM ? " RDNORM" : "",
        p.revents & POLLWRNORM ? " WRNORM" : "", p.revents & POLLPRI ? " PRI" : "",
        p.revents & POLLERR ? " ERR" : "");
}

static void try_file(int ep, const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0) {
        out("%s: open %s", path, errname(errno));
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    show(path, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
    show_poll(path, fd);
    close(fd);
}

int main(void)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    try_file(ep, "/proc/meminfo", O_RDONLY);
    try_file(ep, "/proc/uptime", O_RDONLY);
    try_file(ep, "/proc/sys/kernel/ostype", O_RDONLY);
    try_file(ep, "/proc/sys/kernel/hostname", O_RDONLY);
    try_file(ep, "/proc/self/status", O_RDONLY);
    try_file(ep, "/proc/self/stat", O_RDONLY);
    try_file(ep, "/proc/self/cmdline", O_RDONLY);
    try_file(ep, "/proc/self/comm", O_RDONLY);
    try_file(ep, "/proc/self/mountinfo", O_RDONLY);
    mkdir("sys", 0755);
    if (check("mount sysfs", mount("sysfs", "sys", "sysfs", 0, NULL)) == 0) {
        try_file(ep, "sys/kernel/uevent_seqnum", O_RDONLY);
        /* kernfs: POLLERR | POLLPRI until the first read. */
        int fd = open("sys/kernel/uevent_seqnum", O_RDONLY | O_CLOEXEC);
        show_poll("sysfs polled again", fd);
        char buf[64];
        check("read sysfs", read(fd, buf, sizeof buf) > 0 ? 0 : -1);
        show_poll("sysfs after a read", fd);
        close(fd);
        umount("sys");
    }

    /* The host name changes in a new UTS namespace; the poll table is
     * global, as Linux's. */
    check("unshare CLONE_NEWUTS", unshare(CLONE_NEWUTS));
    int host = open("/proc/sys/kernel/hostname", O_RDONLY | O_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLPRI, .data.u32 = 7};
    check("epoll_ctl add hostname", epoll_ctl(ep, EPOLL_CTL_ADD, host, &ev));
    struct epoll_event got[4];
    out("epoll before a change: %d", epoll_wait(ep, got, 4, 0));
    show_poll("hostname fresh", host);
    check("sethostname", sethostname("polled", 6));
    int n = epoll_wait(ep, got, 4, 0);
    out("epoll after sethostname: %d%s%s%s", n, n > 0 && got[0].data.u32 == 7 ? " (hostname)" : "",
        n > 0 && (got[0].events & EPOLLPRI) ? " PRI" : "", n > 0 && (got[0].events & EPOLLERR) ? " ERR" : "");
    show_poll("hostname after sethostname", host);
    show_poll("hostname polled again", host);
    check("sethostname", sethostname("again", 5));
    show_poll("hostname after another change", host);
    close(host);

    /* /dev/kmsg: nothing to read past the end, then the record written. */
    int dev = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (dev < 0) {
        out("/dev/kmsg: open %s", errname(errno));
        return 0;
    }
    lseek(dev, 0, SEEK_END);
    struct epoll_event kev = {.events = EPOLLIN, .data.u32 = 9};
    show("epoll_ctl add /dev/kmsg", epoll_ctl(ep, EPOLL_CTL_ADD, dev, &kev));
    struct pollfd p = {.fd = dev, .events = POLLIN};
    out("kmsg at the end: poll %d", poll(&p, 1, 0));
    int w = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
    check("write /dev/kmsg", write(w, "<6>proc-poll: a record\n", 23) == 23 ? 0 : -1);
    p.revents = 0;
    n = poll(&p, 1, 0);
    out("kmsg after a write: poll %d revents%s%s%s", n, p.revents & POLLIN ? " IN" : "",
        p.revents & POLLRDNORM ? " RDNORM" : "", p.revents & POLLERR ? " ERR" : "");
    /* Linux wakes the log's waiters from an irq_work: wait for it. */
    n = epoll_wait(ep, got, 4, 2000);
    int found = 0;
    for (int i = 0; i < n; i++)
        found |= got[i].data.u32 == 9 && (got[i].events & EPOLLIN);
    out("epoll reports /dev/kmsg readable: %s", yesno(found));
    return 0;
}
