/* TCP_CORK holds a response written in parts (a header, then a body, as
 * web servers do with tcp_nopush) until it is uncorked, even with
 * TCP_NODELAY: the peer has nothing to read before, SIOCOUTQ counts the
 * held bytes, and the parts leave as one segment (an ETH_P_IP packet
 * socket on lo counts the connection's segments with data). What a cork
 * holds also goes out at tcp(7)'s 200 ms ceiling, and at shutdown for
 * writing, ahead of the FIN. */
#include "packet.h"
#include "tcp-exchange.h"
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
    int c, s;
    int port = tcp_loopback_pair(&c, &s);
    if (port < 0)
        return 1;
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
    int sport, dport, payload;
    while (next_tcp_segment(ip, &sport, &dport, &payload)) {
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
