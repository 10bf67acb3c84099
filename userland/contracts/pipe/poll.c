/* poll/ppoll readiness on pipes: empty -> nothing (timeout 0 returns 0),
 * data -> POLLIN, write end -> POLLOUT, writer closed -> POLLHUP, reader
 * closed -> POLLERR on the write end, bad fd -> POLLNVAL, negative fd
 * ignored; a blocking poll wakes when another process writes. */
#include "common.h"
#include <poll.h>

static const char *ev(short r)
{
    static char bufs[4][64];
    static int next;
    char *buf = bufs[next++ % 4];
    buf[0] = 0;
    if (r & POLLIN) strcat(buf, "IN ");
    if (r & POLLOUT) strcat(buf, "OUT ");
    if (r & POLLERR) strcat(buf, "ERR ");
    if (r & POLLHUP) strcat(buf, "HUP ");
    if (r & POLLNVAL) strcat(buf, "NVAL ");
    if (!buf[0]) strcpy(buf, "none ");
    buf[strlen(buf) - 1] = 0;
    return buf;
}

int main(void)
{
    int p[2];
    pipe(p);
    struct pollfd f[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};
    int n = poll(f, 2, 0);
    out("empty: n=%d read=%s write=%s", n, ev(f[0].revents), ev(f[1].revents));
    write(p[1], "x", 1);
    n = poll(f, 2, 0);
    out("data: n=%d read=%s write=%s", n, ev(f[0].revents), ev(f[1].revents));
    f[0].events = 0;
    n = poll(f, 1, 0);
    out("no events requested: n=%d read=%s", n, ev(f[0].revents));
    f[0].events = POLLIN;
    struct pollfd bad[3] = {{1000, POLLIN, 0}, {-1, POLLIN, 0}, {p[0], POLLIN, 0}};
    n = poll(bad, 3, 0);
    out("bad fd: n=%d %s / negative fd: %s / good: %s", n, ev(bad[0].revents), ev(bad[1].revents), ev(bad[2].revents));
    close(p[1]);
    n = poll(f, 1, 0);
    out("writer closed with data: n=%d %s", n, ev(f[0].revents));
    char c;
    read(p[0], &c, 1);
    n = poll(f, 1, 0);
    out("writer closed, drained: n=%d %s", n, ev(f[0].revents));

    int q[2];
    pipe(q);
    close(q[0]);
    struct pollfd w = {q[1], POLLOUT, 0};
    n = poll(&w, 1, 0);
    out("reader closed: n=%d write end %s", n, ev(w.revents));

    int r[2];
    pipe(r);
    long long t0 = now_ns(CLOCK_MONOTONIC);
    struct pollfd e = {r[0], POLLIN, 0};
    n = poll(&e, 1, 50);
    out("timeout 50 ms: n=%d, waited >= 50 ms: %s", n, yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000LL));
    pid_t pid = fork();
    if (pid == 0) {
        msleep(50);
        write(r[1], "y", 1);
        _exit(0);
    }
    n = poll(&e, 1, 5000);
    out("woken by a writer: n=%d %s", n, ev(e.revents));
    reap("writer", pid);

    struct timespec ts = {0, 20000000};
    sigset_t mask;
    sigemptyset(&mask);
    struct pollfd e2 = {q[1], POLLOUT, 0};
    read(r[0], &c, 1);
    n = ppoll(&e, 1, &ts, &mask);
    out("ppoll timeout: n=%d", n);
    n = ppoll(&e2, 1, NULL, NULL);
    out("ppoll ready: n=%d %s", n, ev(e2.revents));
    errno = 0;
    n = poll(NULL, 1 << 30, 0);
    out("huge nfds: %s", n < 0 ? errname(errno) : "ok");
    ts.tv_nsec = 2000000000;
    n = ppoll(&e, 1, &ts, NULL);
    out("ppoll bad timeout: %s", n < 0 ? errname(errno) : "ok");
    return 0;
}
