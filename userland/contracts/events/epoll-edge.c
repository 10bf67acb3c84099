/* epoll EPOLLET and EPOLLONESHOT: an edge-triggered entry reports once
 * per wake-up of the file (each write to a pipe is one, a partial read is
 * none), and a one-shot entry reports once until EPOLL_CTL_MOD re-arms
 * it. Also eventfd under both. */
#include "common.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>

static int count(int ep)
{
    struct epoll_event ev[4];
    return epoll_wait(ep, ev, 4, 0);
}

int main(void)
{
    int p[2];
    pipe(p);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    out("EPOLL_CLOEXEC sets FD_CLOEXEC: %s", yesno(fcntl(ep, F_GETFD) & FD_CLOEXEC));
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 1};
    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
    out("ET empty: %d", count(ep));
    write(p[1], "ab", 2);
    out("ET after a write: %d", count(ep));
    out("ET again: %d", count(ep));
    char c;
    read(p[0], &c, 1);
    out("ET after a partial read: %d", count(ep));
    write(p[1], "c", 1);
    out("ET after another write (still readable before): %d", count(ep));
    out("ET again: %d", count(ep));
    char buf[8];
    read(p[0], buf, sizeof buf);
    out("ET after draining: %d", count(ep));
    ev.events = EPOLLIN | EPOLLET;
    write(p[1], "d", 1);
    epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev);
    out("ET after MOD while readable: %d", count(ep));
    out("ET again: %d", count(ep));
    read(p[0], buf, sizeof buf);

    /* Added while already readable: one report. */
    int q[2];
    pipe(q);
    write(q[1], "x", 1);
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = 2;
    epoll_ctl(ep, EPOLL_CTL_ADD, q[0], &ev);
    out("ET added while readable: %d", count(ep));
    out("ET again: %d", count(ep));
    epoll_ctl(ep, EPOLL_CTL_DEL, q[0], NULL);

    /* EPOLLOUT edge: a write end becomes writable again after the reader
     * empties a full pipe. */
    fcntl(q[1], F_SETFL, O_NONBLOCK);
    fcntl(q[0], F_SETFL, O_NONBLOCK);
    ev.events = EPOLLOUT | EPOLLET;
    ev.data.u64 = 3;
    epoll_ctl(ep, EPOLL_CTL_ADD, q[1], &ev);
    out("ET writable: %d", count(ep));
    out("ET again: %d", count(ep));
    static char big[65536];
    while (write(q[1], big, sizeof big) > 0)
        ;
    out("ET full: %d", count(ep));
    while (read(q[0], big, sizeof big) > 0)
        ;
    out("ET after emptying: %d", count(ep));
    epoll_ctl(ep, EPOLL_CTL_DEL, q[1], NULL);

    /* One-shot. */
    int r[2];
    pipe(r);
    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.u64 = 4;
    epoll_ctl(ep, EPOLL_CTL_ADD, r[0], &ev);
    write(r[1], "y", 1);
    out("ONESHOT first: %d", count(ep));
    out("ONESHOT second: %d", count(ep));
    write(r[1], "y", 1);
    out("ONESHOT after another write: %d", count(ep));
    out("ONESHOT add again: %s", epoll_ctl(ep, EPOLL_CTL_ADD, r[0], &ev) < 0 ? errname(errno) : "ok");
    out("ONESHOT re-armed by MOD: %s", epoll_ctl(ep, EPOLL_CTL_MOD, r[0], &ev) < 0 ? errname(errno) : "ok");
    out("ONESHOT after MOD: %d", count(ep));
    out("ONESHOT again: %d", count(ep));
    ev.events = EPOLLIN | EPOLLONESHOT | EPOLLET;
    epoll_ctl(ep, EPOLL_CTL_MOD, r[0], &ev);
    out("ONESHOT|ET after MOD: %d", count(ep));
    out("ONESHOT|ET again: %d", count(ep));
    epoll_ctl(ep, EPOLL_CTL_DEL, r[0], NULL);

    /* eventfd: each write is an edge, reads are the EPOLLOUT side. */
    int efd = eventfd(0, EFD_NONBLOCK);
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = 5;
    epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
    uint64_t one = 1;
    out("eventfd ET empty: %d", count(ep));
    write(efd, &one, 8);
    out("eventfd ET after a write: %d", count(ep));
    out("eventfd ET again: %d", count(ep));
    write(efd, &one, 8);
    out("eventfd ET after a second write: %d", count(ep));
    uint64_t v;
    read(efd, &v, 8);
    out("eventfd read: %llu", (unsigned long long)v);
    out("eventfd ET after the read: %d", count(ep));
    ev.events = EPOLLOUT | EPOLLET;
    epoll_ctl(ep, EPOLL_CTL_MOD, efd, &ev);
    out("eventfd ET OUT: %d", count(ep));
    out("eventfd ET OUT again: %d", count(ep));
    write(efd, &one, 8);
    out("eventfd ET OUT after a write: %d", count(ep));
    read(efd, &v, 8);
    out("eventfd ET OUT after a read: %d", count(ep));
    return 0;
}
