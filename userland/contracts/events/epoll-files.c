/* Which files epoll watches: FIFOs (read side, write side, O_RDWR), the
 * standard output, eventfd, timerfd, signalfd and epoll fds all work;
 * regular files, directories and /dev/null or /dev/zero have no poll
 * method (EPERM). */
#include "common.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

static void try_add(int ep, const char *label, int fd, unsigned events)
{
    struct epoll_event ev = {.events = events, .data.u64 = (uint64_t)fd};
    out("%s: %s", label, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? errname(errno) : "ok");
}

static unsigned events_of(int ep, int fd)
{
    struct epoll_event ev[16];
    int n = epoll_wait(ep, ev, 16, 0);
    for (int i = 0; i < n; i++)
        if (ev[i].data.u64 == (uint64_t)fd)
            return ev[i].events;
    return 0;
}

int main(void)
{
    int ep = epoll_create1(0);
    mkfifo("/tmp/epoll-fifo", 0600);
    int rw = open("/tmp/epoll-fifo", O_RDWR);
    int rd = open("/tmp/epoll-fifo", O_RDONLY | O_NONBLOCK);
    int wr = open("/tmp/epoll-fifo", O_WRONLY);
    try_add(ep, "fifo O_RDWR", rw, EPOLLIN | EPOLLOUT);
    try_add(ep, "fifo reader", rd, EPOLLIN);
    try_add(ep, "fifo writer", wr, EPOLLOUT);
    out("fifo O_RDWR, empty: %#x", events_of(ep, rw));
    out("fifo reader, empty: %#x", events_of(ep, rd));
    out("fifo writer: %#x", events_of(ep, wr));
    write(wr, "x", 1);
    out("fifo reader, data: %#x", events_of(ep, rd));
    out("fifo O_RDWR, data: %#x", events_of(ep, rw));
    char c;
    read(rd, &c, 1);

    int ep2 = epoll_create1(0);
    try_add(ep2, "standard output for EPOLLOUT", 1, EPOLLOUT);
    out("standard output writable: %s", yesno(events_of(ep2, 1) & EPOLLOUT));

    int efd = eventfd(1, 0);
    try_add(ep2, "eventfd", efd, EPOLLIN | EPOLLOUT);
    out("eventfd holding 1: %#x", events_of(ep2, efd));
    int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    try_add(ep2, "timerfd", tfd, EPOLLIN | EPOLLOUT);
    out("disarmed timerfd: %#x", events_of(ep2, tfd));
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, 0);
    try_add(ep2, "signalfd", sfd, EPOLLIN | EPOLLOUT);
    out("signalfd, nothing pending: %#x", events_of(ep2, sfd));
    try_add(ep2, "epoll fd", ep, EPOLLIN | EPOLLOUT);
    out("epoll fd with ready entries: %#x", events_of(ep2, ep));

    int reg = open("/tmp/epoll-files-regular", O_RDWR | O_CREAT | O_TRUNC, 0600);
    try_add(ep2, "regular file", reg, EPOLLIN);
    try_add(ep2, "directory", open("/tmp", O_RDONLY | O_DIRECTORY), EPOLLIN);
    try_add(ep2, "/dev/null", open("/dev/null", O_RDWR), EPOLLIN);
    try_add(ep2, "/dev/zero", open("/dev/zero", O_RDONLY), EPOLLIN);
    unlink("/tmp/epoll-files-regular");
    unlink("/tmp/epoll-fifo");
    return 0;
}
