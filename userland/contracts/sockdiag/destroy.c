/* SOCK_DESTROY (Debian's kernel has CONFIG_INET_DIAG_DESTROY): a TCP
 * connection found by its ends (the request's source is the local end),
 * a listener, a connected UDP socket (found the same way, unlike a UDP
 * lookup that answers), each ending with ECONNABORTED as its pending
 * error and no longer listed; the peer of the aborted connection gets a
 * reset; an aborted listener accepts no more. Refusals: no such socket
 * or another socket's cookie (ENOENT; a lookup with no connection
 * matching falls back to a listener on the local end), uid 1234 without CAP_NET_ADMIN
 * (EPERM, after the lookup), a protocol without a handler (ENOENT). */
#include "sockdiag.h"

static int destroy(int d, int proto, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint32_t *cookie)
{
    struct inet_diag_req_v2 req = inet_req(proto, src, sport, dst, dport, cookie);
    struct replies r;
    ask(d, SOCK_DESTROY, NLM_F_REQUEST | NLM_F_ACK, &req, sizeof req, &r);
    int n = r.n;
    replies_free(&r);
    return n ? -1000 : r.end;
}

static const char *result(int r)
{
    return r == -1000 ? "a reply" : r ? errname(-r) : "ok";
}

static const char *so_error(int fd)
{
    int e = 0;
    socklen_t l = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
        return errname(errno);
    return e ? errname(e) : "0";
}

static int listed(int d, int proto, int fd)
{
    struct replies r;
    inet_dump(d, AF_INET, proto, 0xfff, 0, &r);
    int n = 0;
    for (int i = 0; i < r.n; i++)
        n += reply_ino(r.msg[i]) == ino_of(fd);
    replies_free(&r);
    return n;
}

static uint16_t port_of(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &l);
    return ntohs(a.sin_port);
}

int main(void)
{
    diag_setup();
    uint32_t lo = htonl(INADDR_LOOPBACK);
    int c, s;
    int l = tcp_connection(4850, 4, &c, &s);
    struct sockaddr_in a = loopback(4850);
    int d = diag_open();
    uint16_t cport = port_of(c);

    out("no such connection: %s", result(destroy(d, IPPROTO_TCP, lo, 4852, lo, 4851, NULL)));
    uint32_t wrong[2] = {1, 0};
    out("another cookie: %s", result(destroy(d, IPPROTO_TCP, lo, 4850, lo, cport, wrong)));
    out("protocol 0: %s", result(destroy(d, 0, lo, 4850, lo, cport, NULL)));
    pid_t child = fork();
    if (child == 0) {
        if (setresuid(1234, 1234, 1234) < 0)
            _exit(1);
        int d2 = diag_open();
        out("uid 1234, the server's end: %s", result(destroy(d2, IPPROTO_TCP, lo, 4850, lo, cport, NULL)));
        out("uid 1234, no such connection: %s", result(destroy(d2, IPPROTO_TCP, lo, 4852, lo, 4851, NULL)));
        _exit(0);
    }
    reap("child", child);
    out("server listed before: %d", listed(d, IPPROTO_TCP, s));
    /* The server's end: local 4850, remote the client's port. */
    out("the server's end: %s", result(destroy(d, IPPROTO_TCP, lo, 4850, lo, cport, NULL)));
    out("server SO_ERROR: %s", so_error(s));
    char b[8];
    ssize_t n = recv(s, b, sizeof b, MSG_DONTWAIT);
    out("server recv: %zd %s", n, n < 0 ? errname(errno) : "");
    out("server listed after: %d, client %d", listed(d, IPPROTO_TCP, s), listed(d, IPPROTO_TCP, c));
    struct pollfd p = {.fd = c, .events = POLLIN};
    poll(&p, 1, 5000);
    n = recv(c, b, sizeof b, MSG_DONTWAIT);
    out("client recv: %zd %s", n, n < 0 ? errname(errno) : "");
    out("client listed after the reset: %d", listed(d, IPPROTO_TCP, c));

    out("the listener: %s", result(destroy(d, IPPROTO_TCP, lo, 4850, 0, 0, NULL)));
    out("listener SO_ERROR: %s", so_error(l));
    out("listener listed after: %d", listed(d, IPPROTO_TCP, l));
    fcntl(l, F_SETFL, O_NONBLOCK);
    int r = accept(l, NULL, NULL);
    out("accept: %s", r < 0 ? errname(errno) : "a connection");
    int c2 = socket(AF_INET, SOCK_STREAM, 0);
    r = connect(c2, (struct sockaddr *)&a, sizeof a);
    out("connect to it: %s", r < 0 ? errname(errno) : "ok");

    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in ua = loopback(4860), ub = loopback(4861);
    check("bind udp", bind(u, (struct sockaddr *)&ua, sizeof ua));
    check("connect udp", connect(u, (struct sockaddr *)&ub, sizeof ub));
    out("udp, source as the remote end: %s", result(destroy(d, IPPROTO_UDP, lo, 4861, lo, 4860, NULL)));
    out("udp, another cookie: %s", result(destroy(d, IPPROTO_UDP, lo, 4860, lo, 4861, wrong)));
    out("udp: %s", result(destroy(d, IPPROTO_UDP, lo, 4860, lo, 4861, NULL)));
    out("udp SO_ERROR: %s", so_error(u));
    struct sockaddr_in pn;
    socklen_t pl = sizeof pn;
    r = getpeername(u, (struct sockaddr *)&pn, &pl);
    out("udp getpeername: %s", r < 0 ? errname(errno) : "connected");
    out("udp port: %u, listed %d", port_of(u), listed(d, IPPROTO_UDP, u));
    return 0;
}
