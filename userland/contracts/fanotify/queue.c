/* The queue of a group: a read needs room for a whole event (EINVAL),
 * returns as many whole events as fit, blocks until one comes (or
 * EAGAIN), FIONREAD counts the metadata of each queued event, poll and
 * epoll see it readable; past max_queued_events one FAN_Q_OVERFLOW is
 * queued and other events are dropped. */
#include "fan.h"
#include <sys/epoll.h>

static void set_sysctl(const char *path, const char *value)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, value, strlen(value)) < 0)
        out("write %s: %s", path, errname(errno));
    close(fd);
}

int main(void)
{
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        put_file(name, "x");
    }
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    check("init", fan);
    check("mark cwd's children", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, AT_FDCWD, "."));
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN};
    check("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fan, &ev));
    struct pollfd p = {.fd = fan, .events = POLLIN | POLLOUT};
    out("empty: poll %d revents 0x%x, epoll %d", poll(&p, 1, 0), p.revents, epoll_wait(ep, &ev, 1, 0));
    int n = -1;
    ioctl(fan, FIONREAD, &n);
    out("empty: FIONREAD %d", n);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        close(open(name, O_RDONLY));
    }
    p.revents = 0;
    out("three: poll %d revents 0x%x, epoll %d events 0x%x", poll(&p, 1, 0), p.revents, epoll_wait(ep, &ev, 1, 0), ev.events);
    ioctl(fan, FIONREAD, &n);
    out("three: FIONREAD %d", n);
    char buf[256] __attribute__((aligned(8)));
    ssize_t r = read(fan, buf, FAN_EVENT_METADATA_LEN - 1);
    out("read of 23 bytes: %zd %s", r, r < 0 ? errname(errno) : "");
    r = read(fan, buf, FAN_EVENT_METADATA_LEN * 2 + 5);
    out("read of two and a bit: %zd", r);
    for (struct fanotify_event_metadata *m = (void *)buf; FAN_EVENT_OK(m, r); m = FAN_EVENT_NEXT(m, r))
        close(m->fd);
    ioctl(fan, FIONREAD, &n);
    out("one left: FIONREAD %d", n);
    fan_dump("the rest", fan);
    r = read(fan, buf, 0);
    out("read of 0 bytes, empty: %zd %s", r, r < 0 ? errname(errno) : "");

    /* A blocking read waits for the next event. */
    int blocking = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
    check("mark f4", fanotify_mark(blocking, FAN_MARK_ADD, FAN_CLOSE_NOWRITE, AT_FDCWD, "f4"));
    pid_t pid = fork();
    if (pid == 0) {
        msleep(100);
        close(open("f4", O_RDONLY));
        _exit(0);
    }
    r = read(blocking, buf, sizeof buf);
    struct fanotify_event_metadata *m = (void *)buf;
    out("blocking read: %zd, %s, pid is the child: %s", r, fan_mask(m->mask), yesno(m->pid == pid));
    reap("opener", pid);
    close(blocking);

    /* Overflow, with a small queue. */
    set_sysctl("/proc/sys/fs/fanotify/max_queued_events", "3");
    int small = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    set_sysctl("/proc/sys/fs/fanotify/max_queued_events", "16384");
    check("mark cwd's children", fanotify_mark(small, FAN_MARK_ADD, FAN_CLOSE_NOWRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, "."));
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        close(open(name, O_RDONLY));
    }
    ioctl(small, FIONREAD, &n);
    out("overflowed: FIONREAD %d", n);
    fd_names[0] = "f0";
    fd_names[1] = "f1";
    fd_names[2] = "f2";
    fan_dump("overflowed queue", small);
    close(open("f4", O_RDONLY));
    fan_dump("after reading it", small);
    int unlimited = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE, O_RDONLY);
    set_sysctl("/proc/sys/fs/fanotify/max_queued_events", "16384");
    check("unlimited: mark", fanotify_mark(unlimited, FAN_MARK_ADD, FAN_CLOSE_NOWRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, "."));
    close(unlimited);
    return 0;
}
