/* Socket options on TCP and UDP sockets: type, domain, protocol,
 * SO_REUSEADDR, SO_KEEPALIVE, SO_LINGER, SO_RCVBUF/SO_SNDBUF (doubled),
 * SO_ACCEPTCONN, TCP_NODELAY, IP_TTL; unknown options are ENOPROTOOPT,
 * TCP options on UDP too. */
#include "inet.h"

static void geti(int fd, int level, int name, const char *label)
{
    int v = -1;
    socklen_t len = sizeof v;
    if (getsockopt(fd, level, name, &v, &len) < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %d (len %d)", label, v, (int)len);
}

static void seti(int fd, int level, int name, int v, const char *label)
{
    check(label, setsockopt(fd, level, name, &v, sizeof v));
}

int main(void)
{
    lo_up();
    int t = socket(AF_INET, SOCK_STREAM, 0);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    geti(t, SOL_SOCKET, SO_TYPE, "tcp SO_TYPE");
    geti(u, SOL_SOCKET, SO_TYPE, "udp SO_TYPE");
    geti(t, SOL_SOCKET, SO_DOMAIN, "tcp SO_DOMAIN");
    geti(t, SOL_SOCKET, SO_PROTOCOL, "tcp SO_PROTOCOL");
    geti(u, SOL_SOCKET, SO_PROTOCOL, "udp SO_PROTOCOL");
    geti(t, SOL_SOCKET, SO_SNDBUF, "tcp default SO_SNDBUF");
    geti(t, SOL_SOCKET, SO_RCVBUF, "tcp default SO_RCVBUF");
    geti(u, SOL_SOCKET, SO_SNDBUF, "udp default SO_SNDBUF");
    geti(t, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR");
    seti(t, SOL_SOCKET, SO_REUSEADDR, 1, "set SO_REUSEADDR");
    geti(t, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR");
    geti(t, SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE");
    seti(t, SOL_SOCKET, SO_KEEPALIVE, 1, "set SO_KEEPALIVE");
    geti(t, SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE");
    seti(t, SOL_SOCKET, SO_RCVBUF, 8192, "set SO_RCVBUF 8192");
    geti(t, SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF");
    seti(t, SOL_SOCKET, SO_SNDBUF, 10000, "set SO_SNDBUF 10000");
    geti(t, SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF");
    geti(t, SOL_SOCKET, SO_ERROR, "SO_ERROR");
    geti(t, SOL_SOCKET, SO_ACCEPTCONN, "SO_ACCEPTCONN");
    struct linger lg = {1, 5};
    check("set SO_LINGER", setsockopt(t, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
    struct linger g = {0, 0};
    socklen_t len = sizeof g;
    getsockopt(t, SOL_SOCKET, SO_LINGER, &g, &len);
    out("SO_LINGER: on %d time %d len %d", g.l_onoff, g.l_linger, (int)len);
    geti(t, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY");
    seti(t, IPPROTO_TCP, TCP_NODELAY, 1, "set TCP_NODELAY");
    geti(t, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY");
    geti(t, IPPROTO_IP, IP_TTL, "IP_TTL");
    seti(t, IPPROTO_IP, IP_TTL, 7, "set IP_TTL 7");
    geti(t, IPPROTO_IP, IP_TTL, "IP_TTL");
    seti(t, IPPROTO_IP, IP_TTL, 300, "set IP_TTL 300");
    geti(t, SOL_SOCKET, 9999, "unknown SOL_SOCKET option");
    geti(t, IPPROTO_TCP, 9999, "unknown TCP option");
    seti(t, IPPROTO_TCP, 9999, 1, "set unknown TCP option");
    int port = 0;
    int l = tcp_listener(&port);
    geti(l, SOL_SOCKET, SO_ACCEPTCONN, "listener SO_ACCEPTCONN");
    seti(l, SOL_SOCKET, SO_KEEPALIVE, 1, "listener SO_KEEPALIVE");
    seti(l, IPPROTO_TCP, TCP_NODELAY, 1, "listener TCP_NODELAY");
    int c = tcp_connect(port);
    int a = accept(l, NULL, NULL);
    geti(a, SOL_SOCKET, SO_KEEPALIVE, "accepted SO_KEEPALIVE (inherited)");
    geti(a, IPPROTO_TCP, TCP_NODELAY, "accepted TCP_NODELAY (inherited)");
    geti(a, SOL_SOCKET, SO_ACCEPTCONN, "accepted SO_ACCEPTCONN");
    geti(c, SOL_SOCKET, SO_ERROR, "connected SO_ERROR");
    return 0;
}
