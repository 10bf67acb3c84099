/* select/pselect6 on pipes: readable/writable sets, timeout 0 polling,
 * timeouts, EBADF for a closed fd in a set, EINVAL for negative nfds. */
#include "common.h"
#include <sys/select.h>

int main(void)
{
    int p[2];
    pipe(p);
    fd_set r, w;
    struct timeval tv = {0, 0};
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_SET(p[0], &r);
    FD_SET(p[1], &w);
    int n = select(p[1] + 1, &r, &w, NULL, &tv);
    out("empty: n=%d readable=%d writable=%d", n, FD_ISSET(p[0], &r), FD_ISSET(p[1], &w));
    write(p[1], "x", 1);
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    n = select(p[0] + 1, &r, NULL, NULL, &tv);
    out("data: n=%d readable=%d", n, FD_ISSET(p[0], &r));
    char c;
    read(p[0], &c, 1);
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    tv.tv_sec = 0;
    tv.tv_usec = 50000;
    long long t0 = now_ns(CLOCK_MONOTONIC);
    /* Raw select: the kernel writes the time left back (libc may copy). */
    n = syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv);
    out("timeout: n=%d waited >= 50 ms: %s readable=%d", n, yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000LL), FD_ISSET(p[0], &r));
    out("timeval updated to 0: %s", yesno(tv.tv_sec == 0 && tv.tv_usec == 0));
    close(p[1]);
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    tv.tv_usec = 0;
    n = select(p[0] + 1, &r, NULL, NULL, &tv);
    out("writer closed -> readable (EOF): n=%d readable=%d", n, FD_ISSET(p[0], &r));
    FD_ZERO(&r);
    FD_SET(50, &r);
    errno = 0;
    n = select(51, &r, NULL, NULL, &tv);
    out("closed fd in set: %s", n < 0 ? errname(errno) : "ok");
    n = select(-1, NULL, NULL, NULL, &tv);
    out("negative nfds: %s", n < 0 ? errname(errno) : "ok");
    tv.tv_usec = 2000000;
    n = syscall(SYS_select, 0, NULL, NULL, NULL, &tv);
    out("bad timeval: %s", n < 0 ? errname(errno) : "ok");

    int q[2];
    pipe(q);
    pid_t pid = fork();
    if (pid == 0) {
        msleep(50);
        write(q[1], "y", 1);
        _exit(0);
    }
    FD_ZERO(&r);
    FD_SET(q[0], &r);
    struct timespec ts = {5, 0};
    sigset_t m;
    sigemptyset(&m);
    n = pselect(q[0] + 1, &r, NULL, NULL, &ts, &m);
    out("pselect woken by writer: n=%d readable=%d", n, FD_ISSET(q[0], &r));
    reap("writer", pid);
    ts.tv_sec = 0;
    ts.tv_nsec = 10000000;
    FD_ZERO(&r);
    read(q[0], &c, 1);
    FD_SET(q[0], &r);
    n = pselect(q[0] + 1, &r, NULL, NULL, &ts, NULL);
    out("pselect timeout: n=%d", n);
    return 0;
}
