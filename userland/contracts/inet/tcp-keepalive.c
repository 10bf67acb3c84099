/* TCP keepalive: TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT (what curl
 * sets on every connection) read back with Linux's defaults, their ranges
 * (EINVAL outside 1..32767, 1..127 for the count, and for a short value),
 * inherited by an accepted socket from its listener; a connection with
 * SO_KEEPALIVE and one-second timers stays up while its peer answers the
 * probes, and carries data both ways after. */
#include "inet.h"
#include <netinet/tcp.h>

static int get_opt(int fd, int name)
{
    int v = -1;
    socklen_t len = sizeof v;
    if (getsockopt(fd, IPPROTO_TCP, name, &v, &len) < 0)
        return -errno;
    return v;
}

static const char *set_opt(int fd, int level, int name, int v)
{
    return setsockopt(fd, level, name, &v, sizeof v) ? errname(errno) : "ok";
}

int main(void)
{
    lo_up();
    int t = socket(AF_INET, SOCK_STREAM, 0);
    out("defaults: idle %d interval %d count %d", get_opt(t, TCP_KEEPIDLE), get_opt(t, TCP_KEEPINTVL), get_opt(t, TCP_KEEPCNT));
    out("idle 0: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPIDLE, 0));
    out("idle 32767: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPIDLE, 32767));
    out("idle 32768: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPIDLE, 32768));
    out("interval -1: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPINTVL, -1));
    out("interval 32768: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPINTVL, 32768));
    out("count 127: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPCNT, 127));
    out("count 128: %s", set_opt(t, IPPROTO_TCP, TCP_KEEPCNT, 128));
    short half = 5;
    out("short value: %s", setsockopt(t, IPPROTO_TCP, TCP_KEEPIDLE, &half, sizeof half) ? errname(errno) : "ok");
    out("now: idle %d interval %d count %d", get_opt(t, TCP_KEEPIDLE), get_opt(t, TCP_KEEPINTVL), get_opt(t, TCP_KEEPCNT));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    out("on UDP: %s", set_opt(u, IPPROTO_TCP, TCP_KEEPIDLE, 10));

    int port = 0;
    int l = tcp_listener(&port);
    set_opt(l, IPPROTO_TCP, TCP_KEEPIDLE, 1);
    set_opt(l, IPPROTO_TCP, TCP_KEEPINTVL, 1);
    set_opt(l, IPPROTO_TCP, TCP_KEEPCNT, 2);
    out("listener SO_KEEPALIVE: %s", set_opt(l, SOL_SOCKET, SO_KEEPALIVE, 1));
    int c = socket(AF_INET, SOCK_STREAM, 0);
    set_opt(c, SOL_SOCKET, SO_KEEPALIVE, 1);
    set_opt(c, IPPROTO_TCP, TCP_KEEPIDLE, 1);
    set_opt(c, IPPROTO_TCP, TCP_KEEPINTVL, 1);
    set_opt(c, IPPROTO_TCP, TCP_KEEPCNT, 1);
    struct sockaddr_in a = lo_addr(port);
    out("connect: %s", connect(c, (struct sockaddr *)&a, sizeof a) ? errname(errno) : "ok");
    int s = accept(l, NULL, NULL);
    int ka = -1;
    socklen_t len = sizeof ka;
    getsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &ka, &len);
    out("accepted: keepalive %d idle %d interval %d count %d", ka != 0, get_opt(s, TCP_KEEPIDLE), get_opt(s, TCP_KEEPINTVL), get_opt(s, TCP_KEEPCNT));
    /* Idle past several probe times: the peers answer each other. */
    sleep(3);
    int err = -1;
    len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("after 3 s idle: SO_ERROR %s", err ? errname(err) : "0");
    char buf[8] = { 0 };
    out("write: %zd", write(c, "ping", 4));
    out("read: %zd", read(s, buf, sizeof buf));
    out("write back: %zd", write(s, "pong", 4));
    out("read back: %zd", read(c, buf, sizeof buf));
    out("switch off: %s", set_opt(c, SOL_SOCKET, SO_KEEPALIVE, 0));
    return 0;
}
