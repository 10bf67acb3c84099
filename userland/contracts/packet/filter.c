/* SO_ATTACH_FILTER on a packet socket: the classic BPF program runs on
 * each frame as the socket would read it (a SOCK_RAW socket's from the
 * Ethernet header), 0 drops the frame, a smaller length cuts it (the
 * auxiliary data tells the original length); SO_DETACH_FILTER, and
 * ENOENT with no filter. Frames are sent on lo by another packet socket. */
#include "packet.h"

struct sock_filter { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct sock_fprog { unsigned short len; struct sock_filter *filter; };
#ifndef SO_ATTACH_FILTER
#define SO_ATTACH_FILTER 26
#define SO_DETACH_FILTER 27
#endif

static long send_frame(int fd, unsigned char mark, size_t len)
{
    unsigned char f[128];
    memset(f, mark, sizeof f);
    memset(f, 0, 12);
    f[12] = ETH_P_TEST >> 8;
    f[13] = ETH_P_TEST & 0xff;
    struct sockaddr_ll a = ll_addr(lo_index(), ETH_P_TEST);
    return sendto(fd, f, len, 0, (struct sockaddr *)&a, sizeof a);
}

static void take(const char *label, int fd)
{
    unsigned char buf[256], cbuf[64];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    if (!wait_in(fd)) {
        out("%s: nothing", label);
        return;
    }
    long n = recvmsg(fd, &m, MSG_DONTWAIT);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    struct tpacket_auxdata x = {0};
    if (c)
        memcpy(&x, CMSG_DATA(c), sizeof x);
    out("%s: %ld bytes, mark %02x, tp_len %u tp_snaplen %u", label, n, buf[n - 1], x.tp_len, x.tp_snaplen);
}

int main(void)
{
    lo_set(1);
    int tx = lo_packet(SOCK_RAW, ETH_P_TEST);
    int rx = lo_packet(SOCK_RAW, ETH_P_TEST);
    int one = 1;
    setsockopt(rx, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one);
    /* Keep frames whose 15th byte is 0xaa, cut to 20 bytes those whose
     * 15th byte is 0xbb, drop the rest. */
    struct sock_filter prog[] = {
        {0x30, 0, 0, 14},          /* ldb [14] */
        {0x15, 0, 1, 0xaa},        /* jeq #0xaa, +0, +1 */
        {0x06, 0, 0, 0xffff},      /* ret #0xffff */
        {0x15, 0, 1, 0xbb},        /* jeq #0xbb, +0, +1 */
        {0x06, 0, 0, 20},          /* ret #20 */
        {0x06, 0, 0, 0},           /* ret #0 */
    };
    struct sock_fprog fp = {6, prog};
    check("SO_DETACH_FILTER, none", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &one, sizeof one));
    check("SO_ATTACH_FILTER", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp));
    show("send cc", send_frame(tx, 0xcc, 60));
    show("send aa", send_frame(tx, 0xaa, 60));
    show("send bb", send_frame(tx, 0xbb, 70));
    take("first", rx);
    take("second", rx);
    show("third", recv(rx, &one, sizeof one, MSG_DONTWAIT));
    int v;
    socklen_t l = sizeof v;
    struct tpacket_stats st;
    l = sizeof st;
    check("PACKET_STATISTICS", getsockopt(rx, SOL_PACKET, PACKET_STATISTICS, &st, &l));
    out("  len %d packets %u drops %u", (int)l, st.tp_packets, st.tp_drops);
    check("SO_DETACH_FILTER", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &one, sizeof one));
    show("send cc", send_frame(tx, 0xcc, 60));
    take("unfiltered", rx);
    check("SO_DETACH_FILTER again", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &one, sizeof one));
    (void)v;
    return 0;
}
