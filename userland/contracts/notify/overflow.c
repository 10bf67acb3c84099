/* The queue limit: /proc/sys/fs/inotify/max_queued_events applies to
 * instances created after it changes; past it events are dropped and one
 * IN_Q_OVERFLOW (wd -1) ends the queue. A blocking read waits for an
 * event from another process; epoll sees the instance readable. */
#include <sys/epoll.h>
#include "inotify.h"

int main(void)
{
    char old[32] = {0};
    int s = open("/proc/sys/fs/inotify/max_queued_events", O_RDWR);
    read(s, old, sizeof old - 1);
    lseek(s, 0, SEEK_SET);
    show("set max_queued_events 4", write(s, "4\n", 2));
    int fd = inotify_init1(IN_NONBLOCK);
    lseek(s, 0, SEEK_SET);
    write(s, old, strlen(old));
    close(s);
    mkdir("w", 0755);
    inotify_add_watch(fd, "w", IN_CREATE);
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "w/f%d", i);
        close(open(name, O_CREAT | O_WRONLY, 0644));
    }
    dump("eight creates, limit 4", fd);
    close(fd);

    fd = inotify_init();
    inotify_add_watch(fd, "w", IN_DELETE);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN};
    check("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
    show("epoll before", epoll_wait(ep, &ev, 1, 0));
    pid_t pid = fork();
    if (pid == 0) {
        msleep(100);
        unlink("w/f0");
        _exit(0);
    }
    char buf[256] __attribute__((aligned(8)));
    ssize_t n = read(fd, buf, sizeof buf);
    struct inotify_event *e = (struct inotify_event *)buf;
    out("blocking read: %ld bytes, %s %s", (long)n, mask_names(e->mask), e->name);
    reap("child", pid);
    unlink("w/f1");
    show("epoll after", epoll_wait(ep, &ev, 1, 1000));
    return 0;
}
