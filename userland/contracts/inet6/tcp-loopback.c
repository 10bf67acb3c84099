/* TCP over ::1: a listener bound to ::1 on an ephemeral port, a client
 * connecting, accept; the names both sides see (sockaddr_in6, 28 bytes,
 * scope 0) and an echo of data both ways. */
#include "inet6.h"

int main(void)
{
    lo_up();
    int port = 0;
    int l = bound6(SOCK_STREAM, "::1", &port);
    check("listen", listen(l, 4));
    out("port in range: %s", yesno(port >= 32768 && port <= 60999));
    struct sockaddr_in6 a;
    socklen_t len = sizeof a;
    check("getsockname listener", getsockname(l, (struct sockaddr *)&a, &len));
    out("listener: %s", show6(&a, len));
    int c = socket(AF_INET6, SOCK_STREAM, 0);
    len = sizeof a;
    getsockname(c, (struct sockaddr *)&a, &len);
    out("unbound: %s port %d", show6(&a, len), ntohs(a.sin6_port));
    struct sockaddr_in6 to = addr6("::1", port);
    check("connect", connect(c, (struct sockaddr *)&to, sizeof to));
    struct sockaddr_in6 from;
    len = sizeof from;
    int s = accept(l, (struct sockaddr *)&from, &len);
    check("accept", s);
    out("accepted from: %s", show6(&from, len));
    len = sizeof a;
    getsockname(c, (struct sockaddr *)&a, &len);
    out("client name: %s, port matches accept's: %s", show6(&a, len), yesno(a.sin6_port == from.sin6_port));
    len = sizeof a;
    getpeername(c, (struct sockaddr *)&a, &len);
    out("client's peer: %s, is listener: %s", show6(&a, len), yesno(ntohs(a.sin6_port) == port));
    len = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &len);
    out("server side: %s, port %s", show6(&a, len), ntohs(a.sin6_port) == port ? "listener's" : "other");
    int domain = 0;
    len = sizeof domain;
    getsockopt(s, SOL_SOCKET, SO_DOMAIN, &domain, &len);
    out("SO_DOMAIN of accepted: %s", domain == AF_INET6 ? "AF_INET6" : "other");
    check("send", send(c, "ping6", 5, 0));
    char buf[16] = {0};
    long n = recv(s, buf, sizeof buf, 0);
    out("server got %ld: %.*s", n, (int)(n > 0 ? n : 0), buf);
    check("send back", send(s, "pong6", 5, 0));
    n = recv(c, buf, sizeof buf, 0);
    out("client got %ld: %.*s", n, (int)(n > 0 ? n : 0), buf);
    close(s);
    n = recv(c, buf, sizeof buf, 0);
    out("after server close: %ld", n);
    close(c);
    close(l);
    return 0;
}
