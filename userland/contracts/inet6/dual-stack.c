/* A TCP listener on `::` without IPV6_V6ONLY (the default, as
 * net.ipv6.bindv6only is 0) takes IPv4 connections too: the peer reads
 * as ::ffff:127.0.0.1, the accepted socket's own name as
 * ::ffff:127.0.0.1 too, and an AF_INET6 client reaching 127.0.0.1
 * through ::ffff:127.0.0.1 is an IPv4 connection. */
#include "inet6.h"

int main(void)
{
    lo_up();
    int port = 0;
    int l = bound6(SOCK_STREAM, "::", &port);
    int v6only = -1;
    socklen_t len = sizeof v6only;
    check("getsockopt IPV6_V6ONLY", getsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &len));
    out("IPV6_V6ONLY default %d", v6only);
    check("listen", listen(l, 4));
    struct sockaddr_in6 a;
    len = sizeof a;
    getsockname(l, (struct sockaddr *)&a, &len);
    out("listener: %s", show6(&a, len));

    int c4 = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to4 = lo_addr(port);
    check("AF_INET connect to 127.0.0.1", connect(c4, (struct sockaddr *)&to4, sizeof to4));
    struct sockaddr_in6 from;
    len = sizeof from;
    int s = accept(l, (struct sockaddr *)&from, &len);
    check("accept", s);
    out("accepted from: %s", show6(&from, len));
    len = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &len);
    out("accepted's name: %s", show6(&a, len));
    len = sizeof a;
    getpeername(s, (struct sockaddr *)&a, &len);
    out("accepted's peer: %s", show6(&a, len));
    check("send", send(c4, "v4", 2, 0));
    char buf[8] = {0};
    long n = recv(s, buf, sizeof buf, 0);
    out("got %ld: %.*s", n, (int)(n > 0 ? n : 0), buf);
    close(s);
    close(c4);

    int c6 = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 mapped = addr6("::ffff:127.0.0.1", port);
    check("AF_INET6 connect to ::ffff:127.0.0.1", connect(c6, (struct sockaddr *)&mapped, sizeof mapped));
    len = sizeof a;
    getsockname(c6, (struct sockaddr *)&a, &len);
    out("client's name: %s", show6(&a, len));
    len = sizeof from;
    s = accept(l, (struct sockaddr *)&from, &len);
    out("accepted from: %s", show6(&from, len));
    close(s);
    close(c6);

    c6 = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 lo6 = addr6("::1", port);
    check("AF_INET6 connect to ::1", connect(c6, (struct sockaddr *)&lo6, sizeof lo6));
    len = sizeof from;
    s = accept(l, (struct sockaddr *)&from, &len);
    out("accepted from: %s", show6(&from, len));
    close(s);
    close(c6);
    close(l);
    return 0;
}
