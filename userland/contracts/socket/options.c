/* SOL_SOCKET options on AF_UNIX sockets: what SO_TYPE, SO_DOMAIN,
 * SO_PROTOCOL, SO_ACCEPTCONN and SO_ERROR report; SO_SNDBUF/SO_RCVBUF
 * doubling, limits and minimums; boolean options; SO_LINGER; timeouts
 * (SO_RCVTIMEO/SO_SNDTIMEO) stored, checked (EDOM, EINVAL) and honoured by
 * recv, accept and send, and not restarted after a signal; SO_RCVLOWAT;
 * getsockopt lengths. */
#include "common.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

static int geti(int fd, int opt)
{
    int v = -12345;
    socklen_t len = sizeof v;
    if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) < 0)
        return -errno;
    return v;
}

static void seti(const char *label, int fd, int opt, int v)
{
    int r = setsockopt(fd, SOL_SOCKET, opt, &v, sizeof v);
    if (r < 0)
        out("%s: set %d: %s", label, v, errname(errno));
    else
        out("%s: set %d, get %d", label, v, geti(fd, opt));
}

static void settv(const char *label, int fd, int opt, long sec, long usec, socklen_t len)
{
    struct timeval tv = {sec, usec};
    if (setsockopt(fd, SOL_SOCKET, opt, &tv, len) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    memset(&tv, 0x55, sizeof tv);
    socklen_t l = sizeof tv;
    getsockopt(fd, SOL_SOCKET, opt, &tv, &l);
    out("%s: ok, get {%ld, %ld} len %d", label, (long)tv.tv_sec, (long)tv.tv_usec, (int)l);
}

static void on_alarm(int s) { (void)s; }

int main(void)
{
    char buf[64];
    int st = socket(AF_UNIX, SOCK_STREAM, 0), dg = socket(AF_UNIX, SOCK_DGRAM, 0), sq = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    out("SO_TYPE: %d %d %d", geti(st, SO_TYPE), geti(dg, SO_TYPE), geti(sq, SO_TYPE));
    out("SO_DOMAIN: %d SO_PROTOCOL: %d", geti(st, SO_DOMAIN), geti(st, SO_PROTOCOL));
    out("SO_ERROR: %d SO_ACCEPTCONN: %d", geti(st, SO_ERROR), geti(st, SO_ACCEPTCONN));
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "\0kevlar-opt"};
    socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 11;
    bind(st, (struct sockaddr *)&a, alen);
    listen(st, 1);
    out("SO_ACCEPTCONN after listen: %d", geti(st, SO_ACCEPTCONN));
    out("SO_SNDBUF: %d SO_RCVBUF: %d", geti(dg, SO_SNDBUF), geti(dg, SO_RCVBUF));
    seti("SO_SNDBUF", dg, SO_SNDBUF, 65536);
    seti("SO_SNDBUF", dg, SO_SNDBUF, 1);
    seti("SO_SNDBUF", dg, SO_SNDBUF, 1000000);
    seti("SO_SNDBUF", dg, SO_SNDBUF, -1);
    seti("SO_RCVBUF", dg, SO_RCVBUF, 65536);
    seti("SO_RCVBUF", dg, SO_RCVBUF, 0);
    seti("SO_REUSEADDR", dg, SO_REUSEADDR, 5);
    seti("SO_REUSEADDR", dg, SO_REUSEADDR, 0);
    seti("SO_KEEPALIVE", dg, SO_KEEPALIVE, 1);
    seti("SO_PASSCRED", dg, SO_PASSCRED, 7);
    seti("SO_PRIORITY", dg, SO_PRIORITY, 3);
    out("SO_SNDLOWAT: %d SO_RCVLOWAT: %d", geti(dg, SO_SNDLOWAT), geti(dg, SO_RCVLOWAT));

    struct linger lg;
    socklen_t ll = sizeof lg;
    getsockopt(dg, SOL_SOCKET, SO_LINGER, &lg, &ll);
    out("SO_LINGER: {%d, %d} len %d", lg.l_onoff, lg.l_linger, (int)ll);
    lg.l_onoff = 1;
    lg.l_linger = 5;
    check("SO_LINGER {1, 5}", setsockopt(dg, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
    lg.l_onoff = 0;
    lg.l_linger = 7;
    check("SO_LINGER {0, 7}", setsockopt(dg, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
    getsockopt(dg, SOL_SOCKET, SO_LINGER, &lg, &ll);
    out("SO_LINGER: {%d, %d}", lg.l_onoff, lg.l_linger);
    show("SO_LINGER, 4 bytes", setsockopt(dg, SOL_SOCKET, SO_LINGER, &lg, 4));

    /* getsockopt lengths. */
    unsigned char small[8];
    memset(small, 0xee, sizeof small);
    socklen_t sl = 2;
    getsockopt(dg, SOL_SOCKET, SO_TYPE, small, &sl);
    out("SO_TYPE into 2 bytes: len %d bytes %02x %02x %02x", (int)sl, small[0], small[1], small[2]);
    sl = 100;
    int big[25];
    getsockopt(dg, SOL_SOCKET, SO_TYPE, big, &sl);
    out("SO_TYPE into 100 bytes: len %d", (int)sl);
    sl = 0;
    show("SO_TYPE into 0 bytes", getsockopt(dg, SOL_SOCKET, SO_TYPE, big, &sl));
    out("  len %d", (int)sl);

    /* Timeouts. */
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    settv("SO_RCVTIMEO default", sv[0], SO_RCVTIMEO, 0, 0, sizeof(struct timeval));
    settv("SO_RCVTIMEO {1, 500000}", sv[0], SO_RCVTIMEO, 1, 500000, sizeof(struct timeval));
    settv("SO_RCVTIMEO {0, 1000000}", sv[0], SO_RCVTIMEO, 0, 1000000, sizeof(struct timeval));
    settv("SO_RCVTIMEO {0, -1}", sv[0], SO_RCVTIMEO, 0, -1, sizeof(struct timeval));
    settv("SO_RCVTIMEO, 8 bytes", sv[0], SO_RCVTIMEO, 0, 100000, 8);
    settv("SO_RCVTIMEO {-1, 0}", sv[0], SO_RCVTIMEO, -1, 0, sizeof(struct timeval));
    show("recv with a negative timeout", recv(sv[0], buf, 1, 0));
    settv("SO_RCVTIMEO {0, 200000}", sv[0], SO_RCVTIMEO, 0, 200000, sizeof(struct timeval));
    long long t0 = now_ns(CLOCK_MONOTONIC);
    show("recv with a timeout", recv(sv[0], buf, 1, 0));
    out("waited at least 190 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 190000000LL));
    settv("SO_RCVTIMEO on the listener", st, SO_RCVTIMEO, 0, 100000, sizeof(struct timeval));
    t0 = now_ns(CLOCK_MONOTONIC);
    show("accept with a timeout", accept(st, NULL, NULL));
    out("waited at least 90 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 90000000LL));
    settv("SO_SNDTIMEO {0, 100000}", sv[1], SO_SNDTIMEO, 0, 100000, sizeof(struct timeval));
    static char chunk[4096];
    while (send(sv[1], chunk, sizeof chunk, MSG_DONTWAIT) > 0)
        ;
    t0 = now_ns(CLOCK_MONOTONIC);
    show("write to a full buffer with a timeout", write(sv[1], "x", 1));
    out("waited at least 90 ms: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 90000000LL));
    settv("SO_RCVTIMEO back to none", sv[0], SO_RCVTIMEO, 0, 0, sizeof(struct timeval));
    close(sv[0]);
    close(sv[1]);

    /* A signal with SA_RESTART: a wait with a timeout returns EINTR, one
     * without is restarted. */
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    settv("SO_RCVTIMEO {2, 0}", sv[0], SO_RCVTIMEO, 2, 0, sizeof(struct timeval));
    struct itimerval it = {{0, 0}, {0, 100000}};
    setitimer(ITIMER_REAL, &it, NULL);
    show("recv interrupted, timeout set", recv(sv[0], buf, 1, 0));
    settv("SO_RCVTIMEO none", sv[0], SO_RCVTIMEO, 0, 0, sizeof(struct timeval));
    pid_t pid = fork();
    if (pid == 0) {
        msleep(300);
        write(sv[1], "late", 4);
        _exit(0);
    }
    setitimer(ITIMER_REAL, &it, NULL);
    show("read interrupted, no timeout: restarted", read(sv[0], buf, sizeof buf));
    reap("writer", pid);

    /* SO_RCVLOWAT: a stream read waits for that many bytes. */
    seti("SO_RCVLOWAT", sv[0], SO_RCVLOWAT, 3);
    write(sv[1], "ab", 2);
    pid = fork();
    if (pid == 0) {
        msleep(100);
        write(sv[1], "c", 1);
        _exit(0);
    }
    ssize_t r = read(sv[0], buf, sizeof buf);
    out("read with SO_RCVLOWAT 3: %zd '%.*s'", r, (int)r, buf);
    reap("writer", pid);
    return 0;
}
