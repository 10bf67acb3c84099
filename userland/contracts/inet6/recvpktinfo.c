/* IPV6_RECVPKTINFO on a UDP socket: recvmsg gives an IPV6_PKTINFO
 * message with the datagram's destination (::1, or ::ffff:127.0.0.1 for
 * an IPv4 datagram on a dual-stack socket) and lo's index; without the
 * option there is no control message. */
#include "inet6.h"
#include <sys/uio.h>

static void receive(int fd, const char *label)
{
    char data[32], control[256];
    struct sockaddr_in6 from;
    struct iovec iov = {data, sizeof data};
    struct msghdr m = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    long n = recvmsg(fd, &m, 0);
    if (n < 0) {
        out("%s: recvmsg %s", label, errname(errno));
        return;
    }
    out("%s: %ld bytes, controllen %d", label, n, (int)m.msg_controllen);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
            struct in6_pktinfo *p = (struct in6_pktinfo *)CMSG_DATA(c);
            char text[64];
            inet_ntop(AF_INET6, &p->ipi6_addr, text, sizeof text);
            out("  IPV6_PKTINFO len %d: %s index %d", (int)c->cmsg_len, text, p->ipi6_ifindex);
        } else {
            out("  level %d type %d len %d", c->cmsg_level, c->cmsg_type, (int)c->cmsg_len);
        }
    }
}

int main(void)
{
    lo_up();
    int port = 0;
    int r = bound6(SOCK_DGRAM, "::", &port);
    int s6 = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 to = addr6("::1", port);
    sendto(s6, "a", 1, 0, (struct sockaddr *)&to, sizeof to);
    receive(r, "without the option");
    int one = 1;
    check("set IPV6_RECVPKTINFO", setsockopt(r, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one));
    sendto(s6, "b", 1, 0, (struct sockaddr *)&to, sizeof to);
    receive(r, "IPv6 datagram");
    int s4 = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to4 = lo_addr(port);
    sendto(s4, "c", 1, 0, (struct sockaddr *)&to4, sizeof to4);
    receive(r, "IPv4 datagram");
    close(s4);
    close(s6);
    close(r);
    return 0;
}
