/* timerfd: one-shot and periodic timers (relative and TFD_TIMER_ABSTIME,
 * monotonic and realtime), reads returning the expirations since the
 * last read (counted coarsely: the bounds hold on any run), gettime and
 * the old value from settime, nonblocking EAGAIN, poll/epoll readiness,
 * TFD_TIMER_CANCEL_ON_SET, and the argument errors. */
#include "common.h"
#include <poll.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#define MS 1000000L

static struct itimerspec spec(long value_ms, long interval_ms)
{
    struct itimerspec s = {{interval_ms / 1000, (interval_ms % 1000) * MS}, {value_ms / 1000, (value_ms % 1000) * MS}};
    return s;
}

static long long ns_of(struct timespec t)
{
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long rd(int fd)
{
    uint64_t v;
    ssize_t n = read(fd, &v, sizeof v);
    return n == 8 ? (long long)v : -errno;
}

static void show_read(const char *label, int fd)
{
    long long v = rd(fd);
    if (v < 0)
        out("%s: %s", label, errname((int)-v));
    else
        out("%s: %lld", label, v);
}

int main(void)
{
    out("bad clock: %s", timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0) < 0 ? errname(errno) : "ok");
    out("bad flags: %s", timerfd_create(CLOCK_MONOTONIC, 1) < 0 ? errname(errno) : "ok");
    int boot = timerfd_create(CLOCK_BOOTTIME, 0);
    out("CLOCK_BOOTTIME: %s", yesno(boot >= 0));

    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    out("TFD_CLOEXEC: %s, TFD_NONBLOCK: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC), yesno(fcntl(fd, F_GETFL) & O_NONBLOCK));
    struct itimerspec cur;
    timerfd_gettime(fd, &cur);
    out("new timer disarmed: %s", yesno(ns_of(cur.it_value) == 0 && ns_of(cur.it_interval) == 0));
    show_read("read disarmed", fd);

    /* One-shot, relative. */
    struct itimerspec s = spec(50, 0);
    long long t0 = now_ns(CLOCK_MONOTONIC);
    check("settime 50 ms one-shot", timerfd_settime(fd, 0, &s, NULL));
    timerfd_gettime(fd, &cur);
    out("remaining in (0, 50 ms]: %s", yesno(ns_of(cur.it_value) > 0 && ns_of(cur.it_value) <= 50 * MS));
    struct pollfd pf = {fd, POLLIN, 0};
    out("poll before expiry: %d", poll(&pf, 1, 0));
    show_read("read before expiry", fd);
    out("poll until expiry: %d", poll(&pf, 1, 2000));
    out("expired at least 50 ms after settime: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50 * MS));
    show_read("read after expiry", fd);
    show_read("read again", fd);
    timerfd_gettime(fd, &cur);
    out("expired one-shot disarmed: %s", yesno(ns_of(cur.it_value) == 0));

    /* Periodic: 40 ms. */
    int bfd = timerfd_create(CLOCK_MONOTONIC, 0);
    s = spec(40, 40);
    t0 = now_ns(CLOCK_MONOTONIC);
    timerfd_settime(bfd, 0, &s, NULL);
    out("blocking read of a periodic timer: at least 1: %s", yesno(rd(bfd) >= 1));
    out("waited at least 40 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 35 * MS));
    usleep(130 * 1000);
    out("expirations after 130 ms more: at least 3: %s", yesno(rd(bfd) >= 3));
    out("blocking read again: at least 1: %s", yesno(rd(bfd) >= 1));
    timerfd_gettime(bfd, &cur);
    out("interval 40 ms: %s, next within 40 ms: %s", yesno(ns_of(cur.it_interval) == 40 * MS),
        yesno(ns_of(cur.it_value) > 0 && ns_of(cur.it_value) <= 40 * MS));
    struct itimerspec old;
    s = spec(0, 0);
    check("disarm", timerfd_settime(bfd, 0, &s, &old));
    out("old setting had the 40 ms interval: %s", yesno(ns_of(old.it_interval) == 40 * MS));
    timerfd_gettime(bfd, &cur);
    out("disarmed: %s", yesno(ns_of(cur.it_value) == 0 && ns_of(cur.it_interval) == 0));

    /* Absolute times. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    s.it_interval = (struct timespec){0, 0};
    s.it_value = now;
    s.it_value.tv_nsec += 30 * MS;
    if (s.it_value.tv_nsec >= 1000000000L) {
        s.it_value.tv_sec++;
        s.it_value.tv_nsec -= 1000000000L;
    }
    check("absolute monotonic +30 ms", timerfd_settime(bfd, TFD_TIMER_ABSTIME, &s, NULL));
    show_read("blocking read", bfd);
    int rfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
    s = spec(0, 0);
    s.it_value.tv_sec = 1;
    check("absolute realtime in the past", timerfd_settime(rfd, TFD_TIMER_ABSTIME, &s, NULL));
    /* Expired at once, though Linux may count it a moment later. */
    struct pollfd rp = {rfd, POLLIN, 0};
    out("poll: %d", poll(&rp, 1, 2000));
    show_read("read", rfd);
    clock_gettime(CLOCK_REALTIME, &now);
    s.it_value = now;
    s.it_value.tv_sec += 3600;
    check("realtime +1 h with CANCEL_ON_SET", timerfd_settime(rfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &s, NULL));
    show_read("read before the clock is set", rfd);
    clock_gettime(CLOCK_REALTIME, &now);
    check("clock_settime", clock_settime(CLOCK_REALTIME, &now));
    pf.fd = rfd;
    out("poll after the clock was set: %d", poll(&pf, 1, 0));
    show_read("read after the clock was set", rfd);
    show_read("read again", rfd);

    /* epoll, edge-triggered: one event per expiration batch. */
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 9};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    s = spec(20, 0);
    timerfd_settime(fd, 0, &s, NULL);
    out("epoll before expiry: %d", epoll_wait(ep, &ev, 1, 0));
    out("epoll until expiry: %d", epoll_wait(ep, &ev, 1, 2000));
    out("epoll again (edge-triggered): %d", epoll_wait(ep, &ev, 1, 0));
    show_read("read", fd);

    /* Errors. */
    s = spec(10, 0);
    out("settime flags 4: %s", timerfd_settime(fd, 4, &s, NULL) < 0 ? errname(errno) : "ok");
    s.it_value.tv_nsec = 1000000000L;
    out("settime nsec 1e9: %s", timerfd_settime(fd, 0, &s, NULL) < 0 ? errname(errno) : "ok");
    s = spec(10, 0);
    s.it_interval.tv_sec = -1;
    out("settime negative interval: %s", timerfd_settime(fd, 0, &s, NULL) < 0 ? errname(errno) : "ok");
    s = spec(10, 0);
    int p[2];
    pipe(p);
    out("settime on a pipe: %s", timerfd_settime(p[0], 0, &s, NULL) < 0 ? errname(errno) : "ok");
    out("gettime on a pipe: %s", timerfd_gettime(p[0], &cur) < 0 ? errname(errno) : "ok");
    out("settime on a bad fd: %s", timerfd_settime(99, 0, &s, NULL) < 0 ? errname(errno) : "ok");
    out("settime with a bad pointer: %s", syscall(SYS_timerfd_settime, fd, 0, (void *)8, NULL) < 0 ? errname(errno) : "ok");
    out("gettime with a bad pointer: %s", syscall(SYS_timerfd_gettime, fd, (void *)8) < 0 ? errname(errno) : "ok");
    char small[4];
    out("read 4 bytes: %s", read(fd, small, 4) < 0 ? errname(errno) : "ok");
    uint64_t v = 1;
    out("write: %s", write(fd, &v, 8) < 0 ? errname(errno) : "ok");
    return 0;
}
