/* TCP_CORK: set, read back and cleared; data written while corked (a
 * header then a body, as web servers do) arrives once uncorked; on a UDP
 * socket it is ENOPROTOOPT. */
#include "inet.h"
#include <netinet/tcp.h>

static int get_cork(int fd)
{
    int v = -1;
    socklen_t len = sizeof v;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CORK, &v, &len) < 0)
        return -errno;
    return v;
}

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    out("TCP_CORK before connect: %d", get_cork(c));
    struct sockaddr_in a = lo_addr(port);
    connect(c, (struct sockaddr *)&a, sizeof a);
    int s = accept(l, NULL, NULL);
    int one = 1, zero = 0;
    out("set TCP_CORK: %s", setsockopt(s, IPPROTO_TCP, TCP_CORK, &one, sizeof one) ? errname(errno) : "ok");
    out("TCP_CORK: %d", get_cork(s));
    write(s, "HTTP/1.1 200 OK\r\n\r\n", 19);
    write(s, "body", 4);
    out("clear TCP_CORK: %s", setsockopt(s, IPPROTO_TCP, TCP_CORK, &zero, sizeof zero) ? errname(errno) : "ok");
    out("TCP_CORK: %d", get_cork(s));
    char buf[64] = { 0 };
    int got = 0;
    while (got < 23) {
        int n = read(c, buf + got, sizeof buf - 1 - got);
        if (n <= 0)
            break;
        got += n;
    }
    out("received %d bytes, ends with body: %s", got, yesno(got == 23 && memcmp(buf + 19, "body", 4) == 0));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    out("TCP_CORK on UDP: %s", setsockopt(u, IPPROTO_TCP, TCP_CORK, &one, sizeof one) ? errname(errno) : "ok");
    int v;
    socklen_t len = sizeof v;
    out("reading TCP_CORK on UDP: %s", getsockopt(u, IPPROTO_TCP, TCP_CORK, &v, &len) ? errname(errno) : "ok");
    return 0;
}
