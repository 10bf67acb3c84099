/* IPV6_V6ONLY: a listener on `::` with it refuses IPv4 connections
 * (ECONNREFUSED) and shares its port with an AF_INET socket on 0.0.0.0;
 * without it, that bind is EADDRINUSE (the port is both families'); the
 * option cannot change once the socket is bound (EINVAL), and a v6-only
 * socket cannot bind or connect to an IPv4-mapped address. */
#include "inet6.h"

int main(void)
{
    lo_up();
    int port = 0;
    int dual = bound6(SOCK_STREAM, "::", &port);
    listen(dual, 4);
    int one = 1;
    show("set IPV6_V6ONLY after bind", setsockopt(dual, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one));
    int s4 = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in any4;
    memset(&any4, 0, sizeof any4);
    any4.sin_family = AF_INET;
    any4.sin_port = htons(port);
    show("AF_INET bind 0.0.0.0 on a dual-stack port", bind(s4, (struct sockaddr *)&any4, sizeof any4));
    close(s4);
    s4 = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in lo4 = lo_addr(port);
    show("AF_INET bind 127.0.0.1 on a dual-stack port", bind(s4, (struct sockaddr *)&lo4, sizeof lo4));
    close(s4);
    close(dual);

    int v6 = socket(AF_INET6, SOCK_STREAM, 0);
    check("set IPV6_V6ONLY", setsockopt(v6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one));
    int val = -1;
    socklen_t len = sizeof val;
    getsockopt(v6, IPPROTO_IPV6, IPV6_V6ONLY, &val, &len);
    out("IPV6_V6ONLY now %d", val);
    struct sockaddr_in6 any6 = addr6("::", 0);
    check("bind ::", bind(v6, (struct sockaddr *)&any6, sizeof any6));
    port = port6_of(v6);
    check("listen", listen(v6, 4));
    s4 = socket(AF_INET, SOCK_STREAM, 0);
    any4.sin_port = htons(port);
    show("AF_INET bind 0.0.0.0 beside a v6-only socket", bind(s4, (struct sockaddr *)&any4, sizeof any4));
    int c4 = socket(AF_INET, SOCK_STREAM, 0);
    lo4 = lo_addr(port);
    show("AF_INET connect with no IPv4 listener", connect(c4, (struct sockaddr *)&lo4, sizeof lo4));
    close(c4);
    check("listen on the AF_INET socket", listen(s4, 4));
    c4 = socket(AF_INET, SOCK_STREAM, 0);
    show("AF_INET connect to the IPv4 listener", connect(c4, (struct sockaddr *)&lo4, sizeof lo4));
    struct sockaddr_in from4;
    len = sizeof from4;
    int a4 = accept(s4, (struct sockaddr *)&from4, &len);
    out("IPv4 listener accepted: %s", show6((struct sockaddr_in6 *)&from4, len));
    int c6 = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 lo6 = addr6("::1", port);
    show("AF_INET6 connect to ::1", connect(c6, (struct sockaddr *)&lo6, sizeof lo6));
    struct sockaddr_in6 from;
    len = sizeof from;
    int a6 = accept(v6, (struct sockaddr *)&from, &len);
    out("v6-only listener accepted: %s", show6(&from, len));
    close(a4);
    close(a6);
    close(c4);
    close(c6);

    int m = socket(AF_INET6, SOCK_STREAM, 0);
    setsockopt(m, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    struct sockaddr_in6 mapped = addr6("::ffff:127.0.0.1", 0);
    show("v6-only bind ::ffff:127.0.0.1", bind(m, (struct sockaddr *)&mapped, sizeof mapped));
    mapped.sin6_port = htons(port);
    show("v6-only connect ::ffff:127.0.0.1", connect(m, (struct sockaddr *)&mapped, sizeof mapped));
    close(m);
    int u = socket(AF_INET6, SOCK_DGRAM, 0);
    setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    show("v6-only UDP connect ::ffff:127.0.0.1", connect(u, (struct sockaddr *)&mapped, sizeof mapped));
    show("v6-only UDP sendto ::ffff:127.0.0.1", sendto(u, "x", 1, 0, (struct sockaddr *)&mapped, sizeof mapped));
    show("v6-only UDP connect AF_INET", connect(u, (struct sockaddr *)&lo4, sizeof lo4));
    close(u);
    close(v6);
    close(s4);
    return 0;
}
