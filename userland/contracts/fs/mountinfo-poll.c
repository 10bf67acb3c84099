/* /proc/self/mountinfo polls as Linux's: always readable (POLLIN |
 * POLLRDNORM), POLLERR | POLLPRI once after the mount table changed since
 * the open or the last poll; epoll may watch it (systemd and libmount watch
 * the mount table so) and reports a mount and an umount. */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include "common.h"

static void show_poll(const char *label, int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLPRI};
    int n = poll(&p, 1, 0);
    out("%s: poll %d revents%s%s%s%s", label, n, p.revents & POLLIN ? " IN" : "",
        p.revents & POLLRDNORM ? " RDNORM" : "", p.revents & POLLPRI ? " PRI" : "",
        p.revents & POLLERR ? " ERR" : "");
}

int main(void)
{
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out("open: %s", errname(errno));
        return 0;
    }
    show_poll("fresh", fd);
    mkdir("m", 0755);
    check("mount", mount("none", "m", "tmpfs", 0, NULL));
    show_poll("after mount", fd);
    show_poll("polled again", fd);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLPRI, .data.u32 = 7};
    check("epoll_ctl add", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
    struct epoll_event got[2];
    out("epoll before a change: %d", epoll_wait(ep, got, 2, 0));
    pid_t child = fork();
    if (child == 0) {
        struct timespec t = {0, 50 * 1000 * 1000};
        nanosleep(&t, NULL);
        umount("m");
        _exit(0);
    }
    int n = epoll_wait(ep, got, 2, 5000);
    out("epoll after umount: %d events%s%s data %u", n, n > 0 && (got[0].events & EPOLLPRI) ? " PRI" : "",
        n > 0 && (got[0].events & EPOLLERR) ? " ERR" : "", n > 0 ? got[0].data.u32 : 0);
    reap("child", child);
    out("epoll once more: %d", epoll_wait(ep, got, 2, 0));
    int m = open("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
    check("epoll_ctl add mounts", epoll_ctl(ep, EPOLL_CTL_ADD, m, &ev));
    int st = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    check("epoll_ctl add stat", epoll_ctl(ep, EPOLL_CTL_ADD, st, &ev));
    return 0;
}
