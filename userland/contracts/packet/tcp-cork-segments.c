/* TCP_CORK holds a response written in parts (a header, then a body, as
 * web servers do with tcp_nopush) until it is uncorked, even with
 * TCP_NODELAY: the peer has nothing to read before, SIOCOUTQ counts the
 * held bytes, and the parts leave as one segment (an ETH_P_IP packet
 * socket on lo counts the connection's segments with data). What a cork
 * holds also goes out at tcp(7)'s 200 ms ceiling, and at shutdown for
 * writing, ahead of the FIN. */
#include "packet.h"
#include <netinet/tcp.h>
/* SIOCOUTQ is TIOCOUTQ (linux/sockios.h). */
#define SIOCOUTQ TIOCOUTQ

static void read_exactly(int fd, int len, const char *what)
{
    char buf[64];
    int got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, sizeof buf - (size_t)got);
        if (n <= 0) {
            out("%s: read: %s", what, n < 0 ? errname(errno) : "EOF");
            return;
        }
        got += (int)n;
    }
    out("%s: %d bytes read", what, got);
}

static int readable_now(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

int main(void)
{
    lo_set(1);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4) < 0 || getsockname(l, (struct sockaddr *)&a, &al) < 0) {
        out("listener: %s", errname(errno));
        return 1;
    }
    int port = ntohs(a.sin_port);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(c, (struct sockaddr *)&a, sizeof a) < 0) {
        out("connect: %s", errname(errno));
        return 1;
    }
    int s = accept(l, NULL, NULL);
    int one = 1, zero = 0;
    check("TCP_NODELAY", setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
    /* A request, as the response's occasion. */
    if (write(c, "GET /\r\n\r\n", 9) != 9)
        out("request: %s", errname(errno));
    read_exactly(s, 9, "request");
    int ip = lo_packet(SOCK_DGRAM, ETH_P_IP);

    check("TCP_CORK on", setsockopt(s, IPPROTO_TCP, TCP_CORK, &one, sizeof one));
    if (write(s, "HTTP/1.1 200 OK\r\n\r\n", 19) != 19)
        out("header: %s", errname(errno));
    if (write(s, "body", 4) != 4)
        out("body: %s", errname(errno));
    out("client can read while corked: %s", yesno(readable_now(c)));
    int queued = -1;
    check("SIOCOUTQ", ioctl(s, SIOCOUTQ, &queued));
    out("SIOCOUTQ while corked: %d", queued);
    check("TCP_CORK off", setsockopt(s, IPPROTO_TCP, TCP_CORK, &zero, sizeof zero));
    read_exactly(c, 23, "response");

    int data = 0, bytes = 0;
    unsigned char buf[2048];
    for (;;) {
        struct pollfd p = {.fd = ip, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            break;
        struct sockaddr_ll ll;
        socklen_t ll_len = sizeof ll;
        long n = recvfrom(ip, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&ll, &ll_len);
        if (n < 0)
            break;
        if (ll.sll_pkttype != PACKET_HOST || n < 40 || buf[9] != IPPROTO_TCP)
            continue;
        int ihl = (buf[0] & 15) * 4;
        int total = (buf[2] << 8) | buf[3];
        const unsigned char *t = buf + ihl;
        int sport = (t[0] << 8) | t[1];
        int payload = total - ihl - (t[12] >> 4) * 4;
        if (sport == port && payload > 0) {
            data++;
            bytes += payload;
        }
    }
    out("response segments with data: %d, %d bytes", data, bytes);

    /* Never uncorked: the ceiling sends it. */
    check("TCP_CORK on", setsockopt(s, IPPROTO_TCP, TCP_CORK, &one, sizeof one));
    if (write(s, "later", 5) != 5)
        out("later: %s", errname(errno));
    struct pollfd p = {.fd = c, .events = POLLIN};
    out("arrives within 5 s corked: %s", yesno(poll(&p, 1, 5000) == 1));
    read_exactly(c, 5, "after the ceiling");

    /* Shut for writing while corked: the bytes, then EOF. */
    if (write(s, "last", 4) != 4)
        out("last: %s", errname(errno));
    check("shutdown", shutdown(s, SHUT_WR));
    read_exactly(c, 4, "before EOF");
    char end;
    out("then: read %ld", (long)read(c, &end, 1));
    return 0;
}
