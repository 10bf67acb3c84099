/* bind and connect errors of AF_INET6 sockets: short addresses, other
 * families, addresses that are not this machine's, a link-local address
 * without a scope id, a scope id naming no interface, the port taken. */
#include "inet6.h"

int main(void)
{
    lo_up();
    int s = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 a = addr6("::1", 0);
    show("bind len 23", bind(s, (struct sockaddr *)&a, 23));
    show("bind len 24", bind(s, (struct sockaddr *)&a, 24));
    close(s);
    s = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in in4 = lo_addr(0);
    show("bind sockaddr_in", bind(s, (struct sockaddr *)&in4, sizeof in4));
    struct sockaddr_in6 other = addr6("::1", 0);
    other.sin6_family = AF_UNSPEC;
    show("bind AF_UNSPEC", bind(s, (struct sockaddr *)&other, sizeof other));
    close(s);
    static const struct { const char *label, *addr; unsigned scope; } cases[] = {
        {"bind 2001:db8::1", "2001:db8::1", 0},
        {"bind fe80::1 no scope", "fe80::1", 0},
        {"bind fe80::1 scope 99", "fe80::1", 99},
        {"bind fe80::1 scope 1", "fe80::1", 1},
        {"bind ::1 scope 99", "::1", 99},
        {"bind ::ffff:10.9.9.9", "::ffff:10.9.9.9", 0},
        {"bind ::ffff:0.0.0.0", "::ffff:0.0.0.0", 0},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        s = socket(AF_INET6, SOCK_STREAM, 0);
        a = addr6(cases[i].addr, 0);
        a.sin6_scope_id = cases[i].scope;
        show(cases[i].label, bind(s, (struct sockaddr *)&a, sizeof a));
        close(s);
    }
    s = socket(AF_INET6, SOCK_STREAM, 0);
    a = addr6("::ffff:127.0.0.1", 0);
    show("bind ::ffff:127.0.0.1", bind(s, (struct sockaddr *)&a, sizeof a));
    socklen_t len = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &len);
    out("name: %s", show6(&a, len));
    a = addr6("::1", 0);
    show("bind again", bind(s, (struct sockaddr *)&a, sizeof a));
    close(s);

    int port = 0;
    int l = bound6(SOCK_STREAM, "::1", &port);
    int t = socket(AF_INET6, SOCK_STREAM, 0);
    a = addr6("::1", port);
    show("bind a taken port", bind(t, (struct sockaddr *)&a, sizeof a));
    a = addr6("::", port);
    show("bind :: on a port taken at ::1", bind(t, (struct sockaddr *)&a, sizeof a));
    close(t);
    /* Not asked: AF_INET 127.0.0.1 on a port taken at ::1. Linux 6.1
     * answers 0 in some boots and EADDRINUSE in others (its bind hash by
     * address, new in 6.1); Kevlar answers 0, the addresses differing. */
    in4 = lo_addr(port);

    int c = socket(AF_INET6, SOCK_STREAM, 0);
    show("connect sockaddr_in", connect(c, (struct sockaddr *)&in4, sizeof in4));
    a = addr6("::1", port);
    show("connect len 20", connect(c, (struct sockaddr *)&a, 20));
    show("connect to a bound, not listening port", connect(c, (struct sockaddr *)&a, sizeof a));
    close(c);
    c = socket(AF_INET6, SOCK_STREAM, 0);
    a = addr6("2001:db8::1", 80);
    show("connect 2001:db8::1", connect(c, (struct sockaddr *)&a, sizeof a));
    close(c);
    close(l);
    return 0;
}
