/* Frames a packet socket sends on lo: lo hands each back as received, to
 * every socket of its protocol, the sender included (PACKET_HOST for
 * lo's own all-zero address, BROADCAST, MULTICAST, OTHERHOST by the
 * destination); an ETH_P_ALL socket sees it sent first (PACKET_OUTGOING),
 * the sender does not. SOCK_DGRAM puts lo's header on; sendto's errors:
 * a short address, an unknown interface (ENXIO), a frame shorter than a
 * header, longer than the MTU (EMSGSIZE), lo down (ENETDOWN). */
#include "packet.h"

static void drain(const char *label, int fd, int expect)
{
    unsigned char buf[128];
    struct sockaddr_ll a;
    for (int i = 0; i < expect; i++) {
        if (!wait_in(fd)) {
            out("%s: nothing", label);
            return;
        }
        socklen_t al = sizeof a;
        long n = recvfrom(fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&a, &al);
        if (n < 0) {
            out("%s: %s", label, errname(errno));
            return;
        }
        if (a.sll_protocol != htons(ETH_P_TEST)) {
            i--;
            continue;
        }
        out("%s: %ld bytes, first %02x last %02x", label, n, buf[0], buf[n - 1]);
        show_ll("  from", &a, al);
    }
    show("  then", recv(fd, buf, sizeof buf, MSG_DONTWAIT));
}

static long send_frame(int fd, const unsigned char *dst, size_t len)
{
    unsigned char f[256];
    memset(f, 0x5a, sizeof f);
    memcpy(f, dst, 6);
    memset(f + 6, 0, 6);
    f[12] = ETH_P_TEST >> 8;
    f[13] = ETH_P_TEST & 0xff;
    struct sockaddr_ll a = ll_addr(lo_index(), ETH_P_TEST);
    return sendto(fd, f, len, 0, (struct sockaddr *)&a, sizeof a);
}

int main(void)
{
    lo_set(1);
    int tx = lo_packet(SOCK_RAW, ETH_P_TEST);
    int rx = lo_packet(SOCK_RAW, ETH_P_TEST);
    int dg = lo_packet(SOCK_DGRAM, ETH_P_TEST);
    int all = lo_packet(SOCK_RAW, ETH_P_ALL);
    static const unsigned char zero[6], bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
                                      mcast[6] = {0x01, 0x00, 0x5e, 0, 0, 1}, other[6] = {0x02, 0, 0, 0, 0, 1};

    show("send to zero", send_frame(tx, zero, 60));
    drain("rx", rx, 1);
    drain("sender", tx, 1);
    drain("dgram", dg, 1);
    drain("all", all, 2);
    show("send broadcast", send_frame(tx, bcast, 64));
    drain("rx", rx, 1);
    show("send multicast", send_frame(tx, mcast, 64));
    drain("rx", rx, 1);
    show("send other host", send_frame(tx, other, 64));
    drain("rx", rx, 1);
    drain("sender", tx, 3);
    drain("dgram", dg, 3);
    drain("all", all, 6);

    struct sockaddr_ll a = ll_addr(lo_index(), ETH_P_TEST);
    show("dgram send", sendto(dg, "payload", 7, 0, (struct sockaddr *)&a, sizeof a));
    drain("rx", rx, 1);
    drain("dgram", dg, 1);
    drain("tx", tx, 1);
    drain("all", all, 2);
    show("dgram write (bound)", write(dg, "again", 5));
    drain("dgram", dg, 1);
    drain("rx", rx, 1);
    drain("tx", tx, 1);
    drain("all", all, 2);

    show("short addr", sendto(tx, "xxxxxxxxxxxxxxxx", 16, 0, (struct sockaddr *)&a, 12));
    struct sockaddr_ll bad = ll_addr(9999, ETH_P_TEST);
    show("ifindex 9999", sendto(tx, "xxxxxxxxxxxxxxxx", 16, 0, (struct sockaddr *)&bad, sizeof bad));
    show("10 bytes", sendto(tx, "xxxxxxxxxx", 10, 0, (struct sockaddr *)&a, sizeof a));
    static unsigned char huge[65536 + 15];
    show("MTU + 15", sendto(tx, huge, sizeof huge, 0, (struct sockaddr *)&a, sizeof a));
    int unbound = socket(AF_PACKET, SOCK_RAW, 0);
    show("unbound write", write(unbound, "xxxxxxxxxxxxxxxx", 16));
    lo_set(0);
    show("lo down", send_frame(tx, zero, 60));
    lo_set(1);
    drain("rx", rx, 0);
    return 0;
}
