/* Shared by the tcp-acks tests: a loopback TCP connection with
 * TCP_NODELAY on both sides, `warmup` exchanges of 8-byte messages, then
 * `rounds` more watched by an ETH_P_IP packet socket on lo; the segments
 * of the connection are counted as carrying data or not. tcp-cork-segments
 * uses the connection and the segment reader alone. */
#include <netinet/tcp.h>

static int exchange_port;

static void xfer(int from, int to) __attribute__((unused));
static void xfer(int from, int to)
{
    char buf[8] = "exchange";
    if (write(from, buf, sizeof buf) != (ssize_t)sizeof buf)
        out("write: %s", errname(errno));
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t n = read(to, buf + got, sizeof buf - got);
        if (n <= 0) {
            out("read: %s", n < 0 ? errname(errno) : "EOF");
            return;
        }
        got += (size_t)n;
    }
}

/* A loopback TCP connection (lo brought up): its client and server ends
 * in *c and *s. Returns the listener's port, or -1 after printing why the
 * connection could not be made. */
static int tcp_loopback_pair(int *c, int *s)
{
    lo_set(1);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4) < 0 || getsockname(l, (struct sockaddr *)&a, &al) < 0) {
        out("listener: %s", errname(errno));
        return -1;
    }
    *c = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(*c, (struct sockaddr *)&a, sizeof a) < 0) {
        out("connect: %s", errname(errno));
        return -1;
    }
    *s = accept(l, NULL, NULL);
    return ntohs(a.sin_port);
}

/* The next TCP segment to this host that the ETH_P_IP packet socket `ip`
 * caught: its ports and payload length. Returns 0 when none comes within
 * 200 ms. */
static int next_tcp_segment(int ip, int *sport, int *dport, int *payload)
{
    unsigned char buf[2048];
    for (;;) {
        struct pollfd p = {.fd = ip, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            return 0;
        struct sockaddr_ll ll;
        socklen_t ll_len = sizeof ll;
        long n = recvfrom(ip, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&ll, &ll_len);
        if (n < 0)
            return 0;
        if (ll.sll_pkttype != PACKET_HOST || n < 40 || buf[9] != IPPROTO_TCP)
            continue;
        int ihl = (buf[0] & 15) * 4;
        int total = (buf[2] << 8) | buf[3];
        const unsigned char *t = buf + ihl;
        *sport = (t[0] << 8) | t[1];
        *dport = (t[2] << 8) | t[3];
        *payload = total - ihl - (t[12] >> 4) * 4;
        return 1;
    }
}

/* Returns 0, or -1 after printing why the connection could not be made. */
static int count_exchange_segments(int warmup, int rounds, int *data, int *bare) __attribute__((unused));
static int count_exchange_segments(int warmup, int rounds, int *data, int *bare)
{
    int c, s;
    exchange_port = tcp_loopback_pair(&c, &s);
    if (exchange_port < 0)
        return -1;
    int one = 1;
    check("TCP_NODELAY client", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
    check("TCP_NODELAY server", setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
    for (int i = 0; i < warmup; i++) {
        xfer(c, s);
        xfer(s, c);
    }
    int ip = lo_packet(SOCK_DGRAM, ETH_P_IP);
    for (int i = 0; i < rounds; i++) {
        xfer(c, s);
        xfer(s, c);
    }
    *data = 0;
    *bare = 0;
    int sport, dport, payload;
    while (next_tcp_segment(ip, &sport, &dport, &payload)) {
        if (sport != exchange_port && dport != exchange_port)
            continue;
        if (payload > 0)
            ++*data;
        else
            ++*bare;
    }
    return 0;
}
