/* Frames of a UDP datagram over lo as packet sockets see them: a
 * SOCK_DGRAM ETH_P_IP socket gets the IP packet once (PACKET_HOST), a
 * SOCK_RAW ETH_P_ALL socket gets the frame twice, first sent
 * (PACKET_OUTGOING) then received, with lo's all-zero Ethernet header; an
 * ETH_P_IPV6 socket gets nothing. PACKET_AUXDATA, MSG_TRUNC, MSG_PEEK and
 * SIOCINQ on the queued frames. Frames of other traffic are skipped. */
#include "packet.h"
#include <netinet/ip.h>
#include <netinet/udp.h>

static int port;

/* Receives the next frame of our datagram; `off` is where the IP header
 * starts (0 for SOCK_DGRAM, 14 for SOCK_RAW). */
static long next(int fd, unsigned char *buf, size_t size, int off, struct sockaddr_ll *a, socklen_t *alen, int flags)
{
    for (int tries = 0; tries < 50; tries++) {
        if (!wait_in(fd))
            return -2;
        *alen = sizeof *a;
        long n = recvfrom(fd, buf, size, flags | MSG_DONTWAIT, (struct sockaddr *)a, alen);
        if (n < 0)
            return n;
        if (n >= off + 28 && buf[off + 9] == IPPROTO_UDP && ((buf[off + 22] << 8) | buf[off + 23]) == port)
            return n;
        if (flags & MSG_PEEK)
            recv(fd, buf, size, MSG_DONTWAIT);
    }
    return -3;
}

static void show_ip(const char *label, const unsigned char *p, long n)
{
    out("%s: len %ld version %d ihl %d total %d proto %d src-lo %s dst-lo %s udp-len %d payload '%.*s'", label, n,
        p[0] >> 4, p[0] & 15, (p[2] << 8) | p[3], p[9], yesno(p[12] == 127 && p[15] == 1),
        yesno(p[16] == 127 && p[19] == 1), (p[24] << 8) | p[25], (int)(n - 28), p + 28);
}

int main(void)
{
    lo_set(1);
    int ip = lo_packet(SOCK_DGRAM, ETH_P_IP);
    int all = lo_packet(SOCK_RAW, ETH_P_ALL);
    int ip6 = lo_packet(SOCK_DGRAM, ETH_P_IPV6);
    int any = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
    int one = 1;
    check("PACKET_AUXDATA", setsockopt(ip, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one));

    int rx = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(rx, (struct sockaddr *)&sa, sizeof sa);
    socklen_t sl = sizeof sa;
    getsockname(rx, (struct sockaddr *)&sa, &sl);
    port = ntohs(sa.sin_port);
    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    show("sendto", sendto(tx, "hello", 5, 0, (struct sockaddr *)&sa, sizeof sa));
    char got[16];
    show("udp recv", recv(rx, got, sizeof got, 0));

    unsigned char buf[256];
    struct sockaddr_ll a;
    socklen_t al;
    /* The ETH_P_IP socket: one copy, with its auxiliary data. */
    if (!wait_in(ip)) {
        out("ETH_P_IP: nothing");
        return 0;
    }
    int inq = -1;
    ioctl(ip, FIONREAD, &inq);
    out("FIONREAD %d", inq);
    char cbuf[128];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr m = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    long n = recvmsg(ip, &m, MSG_DONTWAIT);
    show_ll("ETH_P_IP from", &a, m.msg_namelen);
    show_ip("ETH_P_IP", buf, n);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA) {
            struct tpacket_auxdata x;
            memcpy(&x, CMSG_DATA(c), sizeof x);
            out("auxdata: cmsg_len %d status 0x%x len %u snaplen %u mac %u net %u vlan %u", (int)c->cmsg_len, x.tp_status, x.tp_len,
                x.tp_snaplen, x.tp_mac, x.tp_net, x.tp_vlan_tci);
        } else {
            out("cmsg level %d type %d", c->cmsg_level, c->cmsg_type);
        }
    }
    out("msg_flags 0x%x", m.msg_flags);
    show("ETH_P_IP again", recv(ip, buf, sizeof buf, MSG_DONTWAIT));

    /* ETH_P_ALL: sent, then received. */
    for (int i = 0; i < 2; i++) {
        n = next(all, buf, sizeof buf, 14, &a, &al, 0);
        if (n < 0) {
            out("ETH_P_ALL %d: %ld", i, n);
            continue;
        }
        int zero = 1;
        for (int j = 0; j < 12; j++)
            zero &= buf[j] == 0;
        out("ETH_P_ALL %d: macs-zero %s ethertype 0x%02x%02x", i, yesno(zero), buf[12], buf[13]);
        show_ll("  from", &a, al);
        show_ip("  ip", buf + 14, n - 14);
    }
    show("ETH_P_IPV6", recv(ip6, buf, sizeof buf, MSG_DONTWAIT));

    /* The unbound ETH_P_IP socket: truncation and peeking. */
    n = next(any, buf, sizeof buf, 0, &a, &al, MSG_PEEK);
    out("any, peek: %ld", n);
    struct msghdr m2 = {.msg_iov = &iov, .msg_iovlen = 1};
    iov.iov_len = 10;
    n = recvmsg(any, &m2, MSG_DONTWAIT | MSG_TRUNC);
    out("any, 10 bytes, MSG_TRUNC: %ld flags 0x%x", n, m2.msg_flags);
    show("any again", recv(any, buf, sizeof buf, MSG_DONTWAIT));
    return 0;
}
