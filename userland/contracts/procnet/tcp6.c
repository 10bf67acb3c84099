/* /proc/net/tcp6 lists AF_INET6 TCP sockets (tcp6_seq_show: no padding,
 * each address as four %08X words): a listener on ::1, a dual-stack one
 * on ::, a connection to it from IPv4 (the accepted socket's addresses
 * are v4-mapped, 0000000000000000FFFF00000100007F), and from IPv6. AF_INET
 * sockets are only in /proc/net/tcp. */
#include "procnet.h"
#include <netinet/in.h>

static int listen6(const struct in6_addr *addr, int port)
{
    int s = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = *addr};
    check("bind", bind(s, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(s, 4));
    return s;
}

int main(void)
{
    fresh_net();
    int l1 = listen6(&in6addr_loopback, 4670);
    int l2 = listen6(&in6addr_any, 4671);
    int c4 = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4671);
    check("connect 127.0.0.1:4671", connect(c4, (struct sockaddr *)&a, sizeof a));
    int s4 = accept(l2, NULL, NULL);
    out("accept: %s", s4 >= 0 ? "ok" : errname(errno));
    int c6 = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(4670), .sin6_addr = in6addr_loopback};
    check("connect [::1]:4670", connect(c6, (struct sockaddr *)&a6, sizeof a6));
    int s6 = accept(l1, NULL, NULL);
    out("accept: %s", s6 >= 0 ? "ok" : errname(errno));
    usleep(100000);
    int fds[6] = {l1, l2, c4, s4, c6, s6};
    const char *names[6] = {"listener ::1", "listener ::", "client4", "accepted4", "client6", "accepted6"};
    inet_file("/proc/net/tcp6", fds, names, 6, 0);
    inet_file("/proc/net/tcp", fds, names, 6, 0);
    return 0;
}
