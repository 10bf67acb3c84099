/* epoll on a listening socket: nothing until a client connects, then
 * EPOLLIN (level-triggered: until accepted); on an accepted socket
 * EPOLLOUT at once and EPOLLIN when data arrives; edge-triggered reports
 * new data once. */
#include "inet.h"
#include <sys/epoll.h>

static void wait_show(int ep, const char *label, int timeout)
{
    struct epoll_event ev[4];
    int n = epoll_wait(ep, ev, 4, timeout);
    if (n <= 0) {
        out("%s: %d", label, n);
        return;
    }
    out("%s: %d event(s), %s%s%s", label, n, ev[0].events & EPOLLIN ? "IN " : "", ev[0].events & EPOLLOUT ? "OUT " : "", ev[0].events & EPOLLHUP ? "HUP" : "");
}

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int ep = epoll_create1(0);
    struct epoll_event e = {.events = EPOLLIN, .data.fd = l};
    check("add listener", epoll_ctl(ep, EPOLL_CTL_ADD, l, &e));
    wait_show(ep, "idle listener", 0);
    int c = tcp_connect(port);
    wait_show(ep, "after connect", 2000);
    wait_show(ep, "still pending", 0);
    int a = accept(l, NULL, NULL);
    wait_show(ep, "after accept", 0);
    int ep2 = epoll_create1(0);
    e.events = EPOLLIN | EPOLLOUT;
    e.data.fd = a;
    epoll_ctl(ep2, EPOLL_CTL_ADD, a, &e);
    wait_show(ep2, "accepted socket idle", 0);
    write(c, "ping", 4);
    wait_show(ep2, "accepted socket with data", 2000);
    int ep3 = epoll_create1(0);
    e.events = EPOLLIN | EPOLLET;
    epoll_ctl(ep3, EPOLL_CTL_ADD, a, &e);
    wait_show(ep3, "edge: data already there", 0);
    wait_show(ep3, "edge: nothing new", 0);
    write(c, "more", 4);
    wait_show(ep3, "edge: new data", 2000);
    close(c);
    wait_show(ep3, "edge: peer closed", 2000);
    return 0;
}
