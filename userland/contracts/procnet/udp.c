/* /proc/net/udp and udp6 list a namespace's UDP sockets that have a
 * port (udp4_seq_show pads each line to 127 characters; udp6 does not):
 * st 07 (TCP_CLOSE) unconnected, 01 once connected, the local address a
 * connected socket's source. An unbound socket is not listed; one bound
 * by sendto (autobind) is. rx_queue is not printed (Linux counts buffer
 * memory, not bytes). */
#include "procnet.h"

int main(void)
{
    fresh_net();
    int unbound = socket(AF_INET, SOCK_DGRAM, 0);
    int u1 = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(4680);
    check("bind 127.0.0.1:4680", bind(u1, (struct sockaddr *)&a, sizeof a));
    int u2 = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(4681)};
    check("bind 0.0.0.0:4681", bind(u2, (struct sockaddr *)&any, sizeof any));
    check("connect u2 to 127.0.0.1:4680", connect(u2, (struct sockaddr *)&a, sizeof a));
    int u3 = socket(AF_INET, SOCK_DGRAM, 0);
    check("sendto (autobind)", sendto(u3, "x", 1, 0, (struct sockaddr *)&a, sizeof a) == 1 ? 0 : -1);
    int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(4682), .sin6_addr = in6addr_loopback};
    check("bind [::1]:4682", bind(u6, (struct sockaddr *)&a6, sizeof a6));
    int fds[5] = {unbound, u1, u2, u3, u6};
    const char *names[5] = {"unbound", "bound", "connected", "autobound", "v6"};
    inet_file("/proc/net/udp", fds, names, 5, 0);
    inet_file("/proc/net/udp6", fds, names, 5, 0);
    return 0;
}
