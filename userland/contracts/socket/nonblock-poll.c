/* Non-blocking AF_UNIX sockets and readiness: SOCK_NONBLOCK and
 * SOCK_CLOEXEC on socket, socketpair and accept4; O_NONBLOCK through
 * fcntl and FIONBIO; EAGAIN on empty reads, full writes, empty accepts and
 * full backlogs; what poll, select and epoll (level- and edge-triggered)
 * report for fresh, listening, connected, full and closed sockets; and
 * sleepers woken by another process. */
#include "common.h"
#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/un.h>

static void show_poll(const char *label, int fd)
{
    struct pollfd p = {fd, POLLIN | POLLOUT | POLLRDHUP, 0};
    int n = poll(&p, 1, 0);
    out("%s: %d%s%s%s%s%s", label, n, p.revents & POLLIN ? " IN" : "", p.revents & POLLOUT ? " OUT" : "",
        p.revents & POLLHUP ? " HUP" : "", p.revents & POLLRDHUP ? " RDHUP" : "", p.revents & POLLERR ? " ERR" : "");
}

static void show_flags(const char *label, int fd)
{
    out("%s: O_NONBLOCK %s FD_CLOEXEC %s", label, yesno(fcntl(fd, F_GETFL) & O_NONBLOCK), yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
}

static size_t fill(int fd)
{
    static char chunk[4096];
    size_t total = 0;
    for (;;) {
        ssize_t w = send(fd, chunk, sizeof chunk, MSG_DONTWAIT);
        if (w < 0)
            break;
        total += w;
    }
    return total;
}

int main(void)
{
    int sv[2];
    char buf[8192];
    check("socketpair(SOCK_NONBLOCK | SOCK_CLOEXEC)", socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv));
    show_flags("flags", sv[0]);
    show("read, nothing there", read(sv[0], buf, 1));
    close(sv[0]);
    close(sv[1]);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    show_flags("plain socketpair", sv[0]);
    check("fcntl(F_SETFL, O_NONBLOCK)", fcntl(sv[0], F_SETFL, O_NONBLOCK));
    show("read", read(sv[0], buf, 1));
    int off = 0, on = 1;
    ioctl(sv[0], FIONBIO, &off);
    show_flags("after FIONBIO off", sv[0]);
    ioctl(sv[0], FIONBIO, &on);
    show_flags("after FIONBIO on", sv[0]);
    show("recv", recv(sv[0], buf, 1, 0));
    show("recv MSG_DONTWAIT on a blocking socket", recv(sv[1], buf, 1, MSG_DONTWAIT));

    /* Readiness of a connected pair. */
    show_poll("connected, empty", sv[1]);
    write(sv[0], "d", 1);
    show_poll("connected, data", sv[1]);
    read(sv[1], buf, 1);
    size_t filled = fill(sv[0]);
    out("filled the buffer: %s", yesno(filled > 0));
    show("write to the full buffer", write(sv[0], "x", 1));
    show_poll("writer, full", sv[0]);
    show_poll("reader, full", sv[1]);
    size_t drained = 0;
    for (;;) {
        ssize_t r = recv(sv[1], buf, sizeof buf, MSG_DONTWAIT);
        if (r <= 0)
            break;
        drained += r;
    }
    out("drained what was written: %s", yesno(drained == filled));
    show_poll("writer, drained", sv[0]);
    write(sv[1], "u", 1);
    close(sv[1]);
    show_poll("peer closed with data unread", sv[0]);
    close(sv[0]);

    /* Fresh and listening sockets. */
    int st = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    show_flags("socket(SOCK_NONBLOCK)", st);
    show_poll("fresh stream socket", st);
    int dg = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    show_flags("socket(SOCK_CLOEXEC)", dg);
    show_poll("fresh datagram socket", dg);
    int sq = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    show_poll("fresh seqpacket socket", sq);
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "\0kevlar-nb"};
    socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 10;
    bind(st, (struct sockaddr *)&a, alen);
    listen(st, 0);
    show_poll("listening, none pending", st);
    show("accept, none pending", accept(st, NULL, NULL));
    int c1 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    check("connect (backlog 0 takes one)", connect(c1, (struct sockaddr *)&a, alen));
    show_poll("connected before accept", c1);
    int c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    show("second connect, backlog full", connect(c2, (struct sockaddr *)&a, alen));
    show_poll("listening, one pending", st);
    int s1 = accept4(st, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    show_flags("accept4(SOCK_NONBLOCK | SOCK_CLOEXEC)", s1);
    check("connect again", connect(c2, (struct sockaddr *)&a, alen));
    int s2 = accept(st, NULL, NULL);
    show_flags("accept from a non-blocking listener", s2);

    /* select. */
    write(c1, "s", 1);
    fd_set r, w;
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_SET(s1, &r);
    FD_SET(s2, &r);
    FD_SET(s2, &w);
    struct timeval tv = {0, 0};
    int n = select((s1 > s2 ? s1 : s2) + 1, &r, &w, NULL, &tv);
    out("select: %d, s1 readable %s, s2 readable %s, s2 writable %s", n, yesno(FD_ISSET(s1, &r)), yesno(FD_ISSET(s2, &r)),
        yesno(FD_ISSET(s2, &w)));
    read(s1, buf, 1);

    /* epoll, level- and edge-triggered. */
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = 1}, got[4];
    check("epoll_ctl ADD level-triggered", epoll_ctl(ep, EPOLL_CTL_ADD, s1, &ev));
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u32 = 2;
    check("epoll_ctl ADD edge-triggered", epoll_ctl(ep, EPOLL_CTL_ADD, s2, &ev));
    show("epoll_wait, nothing", epoll_wait(ep, got, 4, 0));
    write(c1, "a", 1);
    write(c2, "b", 1);
    n = epoll_wait(ep, got, 4, 0);
    out("epoll_wait: %d", n);
    for (int i = 0; i < n; i++)
        out("  data %u events IN %s", got[i].data.u32, yesno(got[i].events & EPOLLIN));
    n = epoll_wait(ep, got, 4, 0);
    out("again: %d (level-triggered only)%s", n, n == 1 && got[0].data.u32 == 1 ? "" : " unexpected");
    write(c2, "b", 1);
    n = epoll_wait(ep, got, 4, 0);
    out("after another write: %d", n);
    read(s1, buf, sizeof buf);
    read(s2, buf, sizeof buf);
    show("epoll_wait, drained", epoll_wait(ep, got, 4, 0));
    shutdown(c1, SHUT_WR);
    n = epoll_wait(ep, got, 4, 0);
    out("peer shut for writing: %d, IN %s RDHUP %s", n, yesno(n == 1 && got[0].events & EPOLLIN), yesno(n == 1 && got[0].events & EPOLLRDHUP));
    ev.events = EPOLLOUT;
    ev.data.u32 = 3;
    epoll_ctl(ep, EPOLL_CTL_ADD, c2, &ev);
    epoll_ctl(ep, EPOLL_CTL_DEL, s1, NULL);
    n = epoll_wait(ep, got, 4, 0);
    out("EPOLLOUT on a connected socket: %d, data %u", n, n == 1 ? got[0].data.u32 : 0);

    /* Sleepers woken by another process. */
    int pair[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
    pid_t pid = fork();
    if (pid == 0) {
        msleep(100);
        write(pair[1], "late", 4);
        msleep(100);
        write(pair[1], "later", 5);
        _exit(0);
    }
    struct pollfd p = {pair[0], POLLIN, 0};
    show("poll(-1) until the child writes", poll(&p, 1, -1));
    show("read", read(pair[0], buf, sizeof buf));
    show("blocking read until the next write", read(pair[0], buf, sizeof buf));
    reap("writer", pid);
    int bl = socket(AF_UNIX, SOCK_STREAM, 0);
    a.sun_path[8] = 'X';
    bind(bl, (struct sockaddr *)&a, alen);
    listen(bl, 1);
    pid = fork();
    if (pid == 0) {
        msleep(100);
        int c = socket(AF_UNIX, SOCK_STREAM, 0);
        connect(c, (struct sockaddr *)&a, alen);
        write(c, "hi", 2);
        _exit(0);
    }
    int acc = accept(bl, NULL, NULL);
    check("blocking accept until the child connects", acc);
    show("read", read(acc, buf, sizeof buf));
    reap("connector", pid);
    return 0;
}
