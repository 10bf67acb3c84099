/* Malformed IPv4 and IPv6 packets sent on lo by a packet socket (header
 * lengths of 0, packets shorter than their headers, truncated ICMP
 * errors quoting nothing) are dropped by the stack: each send returns
 * its length and UDP over lo still works after them. */
#include "packet.h"

static long send_ip(int fd, const unsigned char *ip, size_t len, int v6)
{
    unsigned char f[128] = {0};
    f[12] = v6 ? 0x86 : 0x08;
    f[13] = v6 ? 0xdd : 0x00;
    memcpy(f + 14, ip, len);
    struct sockaddr_ll a = ll_addr(lo_index(), v6 ? ETH_P_IPV6 : ETH_P_IP);
    return sendto(fd, f, 14 + len, 0, (struct sockaddr *)&a, sizeof a);
}

int main(void)
{
    lo_set(1);
    int fd = lo_packet(SOCK_RAW, ETH_P_IP);
    /* ihl 0, protocol ICMP, 8 bytes. */
    static const unsigned char a[8] = {0x40, 0, 0, 8, 0, 0, 0, 0};
    /* ihl 5, ICMP port unreachable quoting a header of ihl 0. */
    unsigned char b[40] = {0x45, 0, 0, 40, 0, 0, 0, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
                           3, 3, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 12, 0, 0, 0, 0, 0, 17, 0, 0};
    /* ihl 15 in a 24-byte packet. */
    static const unsigned char c[24] = {0x4f, 0, 0, 24, 0, 0, 0, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1};
    /* A version-0 packet of one byte, and an IPv6 header alone. */
    static const unsigned char d[1] = {0x05};
    static const unsigned char e[40] = {0x60, 0, 0, 0, 0, 200, 58, 64};
    show("ihl 0", send_ip(fd, a, sizeof a, 0));
    show("icmp quoting ihl 0", send_ip(fd, b, sizeof b, 0));
    b[29] = 0;
    show("icmp quoting 8 bytes", send_ip(fd, b, 28 + 8, 0));
    show("ihl 15, 24 bytes", send_ip(fd, c, sizeof c, 0));
    show("1 byte", send_ip(fd, d, sizeof d, 0));
    show("ipv6 header, payload length 200", send_ip(fd, e, sizeof e, 1));

    int rx = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(rx, (struct sockaddr *)&sa, sizeof sa);
    socklen_t sl = sizeof sa;
    getsockname(rx, (struct sockaddr *)&sa, &sl);
    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    show("udp send", sendto(tx, "still", 5, 0, (struct sockaddr *)&sa, sizeof sa));
    char buf[8] = {0};
    show("udp recv", recv(rx, buf, sizeof buf, 0));
    out("got '%s'", buf);
    return 0;
}
