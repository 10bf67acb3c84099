/* Edge-triggered epoll on sockets: a TCP connection and an AF_UNIX stream
 * pair report EPOLLIN once per arrival (not again while the data stays,
 * nor after a partial read), again after new data; EPOLLRDHUP with
 * EPOLLIN when the peer shuts its sending side; a one-shot entry on a
 * socket reports once until EPOLL_CTL_MOD re-arms it. */
#include "inet.h"
#include <sys/epoll.h>

static void report(int ep, const char *label, int timeout)
{
    struct epoll_event ev[4];
    int n = epoll_wait(ep, ev, 4, timeout);
    if (n <= 0) {
        out("%s: %d", label, n);
        return;
    }
    out("%s: %d, %s%s%s%s", label, n, ev[0].events & EPOLLIN ? "IN " : "", ev[0].events & EPOLLOUT ? "OUT " : "",
        ev[0].events & EPOLLRDHUP ? "RDHUP " : "", ev[0].events & EPOLLHUP ? "HUP" : "");
}

/* `r` receives what `w` sends. */
static void edges(const char *kind, int w, int r)
{
    char buf[16];
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET};
    epoll_ctl(ep, EPOLL_CTL_ADD, r, &ev);
    out("%s", kind);
    report(ep, "  ET idle", 0);
    write(w, "abcd", 4);
    report(ep, "  ET after a write", 2000);
    usleep(50000);
    report(ep, "  ET again", 0);
    read(r, buf, 1);
    usleep(50000);
    report(ep, "  ET after a partial read", 0);
    write(w, "e", 1);
    report(ep, "  ET after another write", 2000);
    report(ep, "  ET again", 0);
    read(r, buf, sizeof buf);
    usleep(50000);
    report(ep, "  ET after draining", 0);

    /* One-shot on the same socket. */
    ev.events = EPOLLIN | EPOLLONESHOT;
    epoll_ctl(ep, EPOLL_CTL_MOD, r, &ev);
    report(ep, "  ONESHOT idle", 0);
    write(w, "f", 1);
    report(ep, "  ONESHOT after a write", 2000);
    report(ep, "  ONESHOT again", 0);
    write(w, "g", 1);
    usleep(50000);
    report(ep, "  ONESHOT after another write", 0);
    epoll_ctl(ep, EPOLL_CTL_MOD, r, &ev);
    report(ep, "  ONESHOT re-armed", 0);
    report(ep, "  ONESHOT again", 0);
    read(r, buf, sizeof buf);

    /* The peer's shutdown is an edge: EPOLLIN with EPOLLRDHUP. */
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    epoll_ctl(ep, EPOLL_CTL_MOD, r, &ev);
    report(ep, "  ET drained", 0);
    shutdown(w, SHUT_WR);
    report(ep, "  ET after the peer's SHUT_WR", 2000);
    report(ep, "  ET again", 0);
    close(ep);
}

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int c = tcp_connect(port);
    int a = accept(l, NULL, NULL);
    edges("tcp", c, a);
    close(a);
    close(c);
    close(l);

    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    edges("unix stream", sv[0], sv[1]);
    return 0;
}
