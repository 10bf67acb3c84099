/* Shared by the AF_PACKET tests: lo up or down, a packet socket bound to
 * lo, describing a received frame's sockaddr_ll, and receiving with a
 * deadline (loopback delivers from a softirq on Linux: a frame is waited
 * for, never assumed to be there already). */
#ifndef CONTRACTS_PACKET_H
#define CONTRACTS_PACKET_H
#include "common.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifndef ETH_P_ALL
#define ETH_P_ALL 0x0003
#endif
#ifndef ETH_P_IP
#define ETH_P_IP 0x0800
#endif
#ifndef ETH_P_IPV6
#define ETH_P_IPV6 0x86DD
#endif
/* include/uapi/linux/if_packet.h (musl's netpacket/packet.h lacks them). */
struct tpacket_stats { unsigned int tp_packets, tp_drops; };
struct tpacket_auxdata {
    uint32_t tp_status, tp_len, tp_snaplen;
    uint16_t tp_mac, tp_net, tp_vlan_tci, tp_vlan_tpid;
};
/* IEEE 802 local experimental ethertype: nothing else on lo uses it. */
#define ETH_P_TEST 0x88B5

static void lo_set(int up) __attribute__((unused));
static void lo_set(int up)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
        out("lo_set: SIOCGIFFLAGS: %s", errname(errno));
    if (up)
        r.ifr_flags |= IFF_UP;
    else
        r.ifr_flags &= ~IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &r) < 0)
        out("lo_set: SIOCSIFFLAGS: %s", errname(errno));
    close(s);
}

static int lo_index(void) __attribute__((unused));
static int lo_index(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    int i = ioctl(s, SIOCGIFINDEX, &r) < 0 ? -1 : r.ifr_ifindex;
    close(s);
    return i;
}

static struct sockaddr_ll ll_addr(int ifindex, int protocol) __attribute__((unused));
static struct sockaddr_ll ll_addr(int ifindex, int protocol)
{
    struct sockaddr_ll a;
    memset(&a, 0, sizeof a);
    a.sll_family = AF_PACKET;
    a.sll_protocol = htons(protocol);
    a.sll_ifindex = ifindex;
    return a;
}

/* A packet socket of `type` for `protocol` (host order) bound to lo. */
static int lo_packet(int type, int protocol) __attribute__((unused));
static int lo_packet(int type, int protocol)
{
    int fd = socket(AF_PACKET, type | SOCK_CLOEXEC, htons(protocol));
    if (fd < 0) {
        out("socket: %s", errname(errno));
        return -1;
    }
    struct sockaddr_ll a = ll_addr(lo_index(), protocol);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
        out("bind: %s", errname(errno));
    return fd;
}

/* Waits up to 10 s for something to read; 0 when nothing came. */
static int wait_in(int fd) __attribute__((unused));
static int wait_in(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 10000) > 0;
}

static const char *pkttype_name(int t) __attribute__((unused));
static const char *pkttype_name(int t)
{
    switch (t) {
    case PACKET_HOST: return "HOST";
    case PACKET_BROADCAST: return "BROADCAST";
    case PACKET_MULTICAST: return "MULTICAST";
    case PACKET_OTHERHOST: return "OTHERHOST";
    case PACKET_OUTGOING: return "OUTGOING";
    }
    return "other";
}

/* Prints what a receive's sockaddr_ll says. */
static void show_ll(const char *label, const struct sockaddr_ll *a, socklen_t len) __attribute__((unused));
static void show_ll(const char *label, const struct sockaddr_ll *a, socklen_t len)
{
    int zero = 1;
    for (int i = 0; i < a->sll_halen && i < 8; i++)
        zero &= a->sll_addr[i] == 0;
    out("%s: addrlen %d family %d protocol 0x%04x ifindex-lo %s hatype %d %s halen %d addr-zero %s", label, (int)len,
        a->sll_family, ntohs(a->sll_protocol), yesno(a->sll_ifindex == lo_index()), a->sll_hatype,
        pkttype_name(a->sll_pkttype), a->sll_halen, yesno(zero));
}
#endif
