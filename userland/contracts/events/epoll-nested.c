/* Nested epoll and hang-ups: an epoll fd watched by another epoll, by
 * poll and select is readable while it has events; EPOLLHUP on the read
 * end once the writer is gone, EPOLLERR on the write end once the reader
 * is gone (reported even when not asked for); epoll_pwait's mask is the
 * one in force while it waits. */
#include "common.h"
#include <poll.h>
#include <sys/epoll.h>

static void wait_show(const char *label, int ep)
{
    struct epoll_event ev[4];
    int n = epoll_wait(ep, ev, 4, 0);
    char buf[256];
    int len = snprintf(buf, sizeof buf, "%s: %d", label, n);
    for (int i = 0; i < n; i++)
        len += snprintf(buf + len, sizeof buf - len, " [data %llu events %#x]", (unsigned long long)ev[i].data.u64, ev[i].events);
    out("%s", buf);
}

static volatile int got_usr1;
static void on_usr1(int sig)
{
    (void)sig;
    got_usr1++;
}

int main(void)
{
    int p[2];
    pipe(p);
    int inner = epoll_create1(0), outer = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 10};
    epoll_ctl(inner, EPOLL_CTL_ADD, p[0], &ev);
    ev.data.u64 = 20;
    epoll_ctl(outer, EPOLL_CTL_ADD, inner, &ev);
    wait_show("outer, nothing written", outer);
    struct pollfd pf = {inner, POLLIN, 0};
    out("poll on inner: %d", poll(&pf, 1, 0));
    write(p[1], "a", 1);
    wait_show("outer after a write", outer);
    pf.revents = 0;
    int polled = poll(&pf, 1, 0);
    out("poll on inner: %d revents %#x", polled, pf.revents);
    fd_set rs;
    FD_ZERO(&rs);
    FD_SET(inner, &rs);
    struct timeval tv = {0, 0};
    out("select on inner: %d", select(inner + 1, &rs, NULL, NULL, &tv));
    wait_show("inner", inner);
    wait_show("outer still (level-triggered inner entry)", outer);

    /* A blocked outer wait ends when a child writes to the pipe. */
    char buf[8];
    read(p[0], buf, sizeof buf);
    pid_t pid = fork();
    if (pid == 0) {
        usleep(50000);
        write(p[1], "b", 1);
        _exit(0);
    }
    struct epoll_event one;
    out("blocking outer wait: %d", epoll_wait(outer, &one, 1, 5000));
    reap("writer", pid);
    read(p[0], buf, sizeof buf);

    /* Hang-ups. */
    close(p[1]);
    wait_show("inner after the writer closed", inner);
    write(p[0], "", 0);
    int q[2];
    pipe(q);
    int ep = epoll_create1(0);
    ev.events = EPOLLOUT;
    ev.data.u64 = 30;
    epoll_ctl(ep, EPOLL_CTL_ADD, q[1], &ev);
    wait_show("write end", ep);
    close(q[0]);
    wait_show("write end after the reader closed", ep);
    ev.events = 0;
    epoll_ctl(ep, EPOLL_CTL_MOD, q[1], &ev);
    wait_show("write end asking for nothing", ep);
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLPRI;
    ev.data.u64 = 40;
    int r[2];
    pipe(r);
    epoll_ctl(ep, EPOLL_CTL_ADD, r[0], &ev);
    write(r[1], "x", 1);
    close(r[1]);
    wait_show("read end with data, writer gone", ep);

    /* epoll_pwait: SIGUSR1 blocked, pending; a wait whose mask unblocks it
     * is interrupted and the handler runs; the old mask comes back. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t block, empty, now;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigemptyset(&empty);
    sigprocmask(SIG_BLOCK, &block, NULL);
    int e2 = epoll_create1(0);
    out("epoll_pwait, blocked mask: %d", epoll_pwait(e2, &one, 1, 0, &block));
    kill(getpid(), SIGUSR1);
    out("epoll_pwait, blocked mask, pending: %d, handler ran: %d", epoll_pwait(e2, &one, 1, 10, &block), got_usr1);
    int n = epoll_pwait(e2, &one, 1, 1000, &empty);
    out("epoll_pwait, empty mask: %d %s, handler ran: %d", n, n < 0 ? errname(errno) : "", got_usr1);
    sigprocmask(SIG_BLOCK, NULL, &now);
    out("SIGUSR1 blocked again: %s", yesno(sigismember(&now, SIGUSR1)));
    return 0;
}
