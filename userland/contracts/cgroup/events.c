/* cgroup.events notifies its watchers when "populated" changes: poll
 * reports POLLPRI|POLLERR (with the POLLIN|POLLOUT every kernfs file
 * has) until the file is read again, epoll with EPOLLPRI sees it, and
 * inotify gets IN_MODIFY. */
#include "cg.h"
#include <sys/epoll.h>
#include <sys/inotify.h>

#define A CG "/t-events"

/* Linux may send the notification a moment later (at most one per
 * 20 ms): a poll after a change waits for it. */
static void report_wait(const char *label, int fd, int ms)
{
    struct pollfd p = {fd, POLLPRI, 0};
    int n = poll(&p, 1, ms);
    out("%s: poll %d revents%s%s%s%s", label, n, p.revents & POLLIN ? " IN" : "", p.revents & POLLOUT ? " OUT" : "",
        p.revents & POLLPRI ? " PRI" : "", p.revents & POLLERR ? " ERR" : "");
}

static void report(const char *label, int fd)
{
    report_wait(label, fd, 0);
}

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    int fd = open(A "/cgroup.events", O_RDONLY);
    report("opened, never read", fd);
    char buf[128];
    read(fd, buf, sizeof buf);
    report("after a read", fd);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLPRI, .data.u32 = 7};
    check("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
    struct epoll_event got;
    show("epoll_wait before", epoll_wait(ep, &got, 1, 0));
    int in = inotify_init1(IN_NONBLOCK);
    show("inotify watch", inotify_add_watch(in, A "/cgroup.events", IN_MODIFY) > 0);
    pid_t child = cg_sleeper();
    cg_move(A, child);
    report_wait("after populating", fd, 5000);
    int n = epoll_wait(ep, &got, 1, 1000);
    out("epoll_wait: %d events%s data %u", n, n > 0 && (got.events & EPOLLPRI) ? " PRI" : "", n > 0 ? got.data.u32 : 0);
    /* Linux sends the inotify event from a work queue: wait for it. */
    char ibuf[256];
    struct pollfd ip = {in, POLLIN, 0};
    poll(&ip, 1, 5000);
    ssize_t r = read(in, ibuf, sizeof ibuf);
    out("inotify IN_MODIFY: %s", yesno(r > 0 && (((struct inotify_event *)ibuf)->mask & IN_MODIFY)));
    lseek(fd, 0, SEEK_SET);
    r = read(fd, buf, sizeof buf - 1);
    buf[r > 0 ? r : 0] = 0;
    out("text: %s", strtok(buf, "\n"));
    report("read again", fd);
    cg_end(child);
    report_wait("after the exit", fd, 5000);
    lseek(fd, 0, SEEK_SET);
    read(fd, buf, sizeof buf);
    report("read again", fd);
    int other = open(A "/cgroup.procs", O_RDONLY);
    report("cgroup.procs never read", other);
    read(other, buf, sizeof buf);
    report("cgroup.procs after a read", other);
    close(other);
    close(fd);
    rmdir(A);
    cg_umount();
    return 0;
}
