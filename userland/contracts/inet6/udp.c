/* UDP over IPv6: datagrams between two sockets on ::1 with the sender's
 * sockaddr_in6 from recvfrom; a dual-stack socket on `::` receiving from
 * an AF_INET socket (the sender as ::ffff:127.0.0.1) and answering it
 * through the mapped address; connect's names. */
#include "inet6.h"

int main(void)
{
    lo_up();
    int pa = 0, pb = 0;
    int a = bound6(SOCK_DGRAM, "::1", &pa);
    int b = bound6(SOCK_DGRAM, "::1", &pb);
    struct sockaddr_in6 to = addr6("::1", pb);
    check("sendto ::1", sendto(a, "hello6", 6, 0, (struct sockaddr *)&to, sizeof to));
    char buf[32] = {0};
    struct sockaddr_in6 from;
    socklen_t len = sizeof from;
    long n = recvfrom(b, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    out("got %ld: %.*s from %s, the sender: %s", n, (int)(n > 0 ? n : 0), buf, show6(&from, len), yesno(ntohs(from.sin6_port) == pa));
    check("connect", connect(a, (struct sockaddr *)&to, sizeof to));
    struct sockaddr_in6 name;
    len = sizeof name;
    getpeername(a, (struct sockaddr *)&name, &len);
    out("peer: %s", show6(&name, len));
    check("send", send(a, "again", 5, 0));
    n = recv(b, buf, sizeof buf, 0);
    out("got %ld", n);
    close(a);
    close(b);

    int d;
    int pd = 0;
    d = bound6(SOCK_DGRAM, "::", &pd);
    int c4 = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in lo4 = lo_addr(pd);
    check("AF_INET sendto 127.0.0.1", sendto(c4, "from4", 5, 0, (struct sockaddr *)&lo4, sizeof lo4));
    len = sizeof from;
    n = recvfrom(d, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    out("dual got %ld: %.*s from %s", n, (int)(n > 0 ? n : 0), buf, show6(&from, len));
    check("reply through the mapped address", sendto(d, "to4", 3, 0, (struct sockaddr *)&from, len));
    struct sockaddr_in from4;
    len = sizeof from4;
    n = recvfrom(c4, buf, sizeof buf, 0, (struct sockaddr *)&from4, &len);
    out("AF_INET got %ld: %.*s from %s", n, (int)(n > 0 ? n : 0), buf, show6((struct sockaddr_in6 *)&from4, len));
    struct sockaddr_in c4name;
    len = sizeof c4name;
    getsockname(c4, (struct sockaddr *)&c4name, &len);
    c4name.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    check("sendto AF_INET address on AF_INET6 socket", sendto(d, "x", 1, 0, (struct sockaddr *)&c4name, sizeof c4name));
    n = recv(c4, buf, sizeof buf, 0);
    out("AF_INET got %ld", n);
    int c6 = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 lo6 = addr6("::1", pd);
    check("connect ::1", connect(c6, (struct sockaddr *)&lo6, sizeof lo6));
    len = sizeof name;
    getsockname(c6, (struct sockaddr *)&name, &len);
    out("connected name: %s", show6(&name, len));
    check("send", send(c6, "v6", 2, 0));
    len = sizeof from;
    n = recvfrom(d, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    out("dual got %ld from %s", n, show6(&from, len));
    close(c6);
    close(c4);
    close(d);
    return 0;
}
