/* epoll over pipes, level-triggered: events appear when the pipe is ready
 * and stay until it is not; the data word comes back; EPOLL_CTL_MOD
 * changes events and data; EPOLL_CTL_DEL stops reporting; timeout 0
 * polls, a positive timeout waits that long, and a blocked wait ends when
 * another process writes. */
#include "common.h"
#include <sys/epoll.h>

static void wait_show(const char *label, int ep, int timeout)
{
    struct epoll_event ev[8];
    int n = epoll_wait(ep, ev, 8, timeout);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    char buf[256];
    int len = snprintf(buf, sizeof buf, "%s: %d", label, n);
    for (int i = 0; i < n; i++)
        len += snprintf(buf + len, sizeof buf - len, " [data %llu events %#x]", (unsigned long long)ev[i].data.u64, ev[i].events);
    out("%s", buf);
}

int main(void)
{
    int p[2];
    pipe(p);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 111};
    check("add read end", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
    wait_show("empty pipe", ep, 0);
    write(p[1], "abc", 3);
    wait_show("after a write", ep, 0);
    wait_show("again (level-triggered)", ep, 0);
    char buf[16];
    read(p[0], buf, 2);
    wait_show("after a partial read", ep, 0);
    read(p[0], buf, 1);
    wait_show("after reading everything", ep, 0);

    ev.events = EPOLLOUT;
    ev.data.u64 = 222;
    check("add write end for EPOLLOUT", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev));
    wait_show("writable", ep, 0);
    ev.events = EPOLLIN;
    ev.data.u64 = 333;
    check("mod write end to EPOLLIN", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev));
    wait_show("after mod", ep, 0);
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDNORM | EPOLLWRNORM;
    ev.data.u64 = 444;
    check("mod write end to IN|OUT|RDNORM|WRNORM", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev));
    wait_show("after mod", ep, 0);
    check("del write end", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL));
    wait_show("after del", ep, 0);

    ev.events = EPOLLIN | EPOLLRDNORM;
    ev.data.u64 = 555;
    check("mod read end to IN|RDNORM", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
    write(p[1], "x", 1);
    wait_show("read end", ep, 0);
    read(p[0], buf, 1);

    /* Timeouts. */
    long long t0 = now_ns(CLOCK_MONOTONIC);
    wait_show("timeout 50 ms", ep, 50);
    out("waited at least 50 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000LL));
    struct timespec ts = {0, 30000000};
    t0 = now_ns(CLOCK_MONOTONIC);
    int n = (int)syscall(441 /* epoll_pwait2 */, ep, &ev, 1, &ts, NULL, 8);
    out("epoll_pwait2 30 ms: %d", n);
    out("waited at least 30 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 30000000LL));

    /* A blocked wait ends when a child writes. */
    pid_t pid = fork();
    if (pid == 0) {
        usleep(50000);
        write(p[1], "z", 1);
        _exit(0);
    }
    wait_show("blocking wait", ep, 5000);
    reap("writer", pid);
    read(p[0], buf, 1);

    /* maxevents limits the batch; the rest come next time. */
    int q[2], r[2];
    pipe(q);
    pipe(r);
    ev.events = EPOLLIN;
    ev.data.u64 = 666;
    epoll_ctl(ep, EPOLL_CTL_ADD, q[0], &ev);
    ev.data.u64 = 777;
    epoll_ctl(ep, EPOLL_CTL_ADD, r[0], &ev);
    write(q[1], "q", 1);
    write(r[1], "r", 1);
    write(p[1], "p", 1);
    struct epoll_event one;
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        if (epoll_wait(ep, &one, 1, 0) == 1)
            seen |= one.data.u64 == 555 ? 1 : one.data.u64 == 666 ? 2 : one.data.u64 == 777 ? 4 : 8;
    }
    out("three waits of one event saw each pipe once: %s", yesno(seen == 7));

    /* A closed file leaves the set; a dup keeps it there. */
    int keep = dup(q[0]);
    close(q[0]);
    epoll_wait(ep, &one, 1, 0);
    struct epoll_event all[8];
    n = epoll_wait(ep, all, 8, 0);
    int has666 = 0;
    for (int i = 0; i < n; i++)
        has666 |= all[i].data.u64 == 666;
    out("closed fd with a dup still reported: %s", yesno(has666));
    close(keep);
    n = epoll_wait(ep, all, 8, 0);
    has666 = 0;
    for (int i = 0; i < n; i++)
        has666 |= all[i].data.u64 == 666;
    out("after the last close: reported %s", yesno(has666));
    out("del of the closed fd: %s", epoll_ctl(ep, EPOLL_CTL_DEL, q[0], NULL) < 0 ? errname(errno) : "ok");
    return 0;
}
