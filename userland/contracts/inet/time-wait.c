/* The side that closes a TCP connection first keeps its port in
 * TIME-WAIT: binding it again is EADDRINUSE, unless both the old
 * connection (through its listener) and the new socket set SO_REUSEADDR.
 * Closing with unread data, or with SO_LINGER of zero, resets the
 * connection: the peer reads ECONNRESET. */
#include "inet.h"

/* A listener (SO_REUSEADDR if asked), one connection closed by the
 * server first, then the client; returns the port. */
static int server_closes_first(int reuse)
{
    int one = 1, port = 0;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (reuse)
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = lo_addr(0);
    bind(l, (struct sockaddr *)&a, sizeof a);
    listen(l, 1);
    port = port_of(l);
    int c = tcp_connect(port);
    int s = accept(l, NULL, NULL);
    close(s);
    char b;
    read(c, &b, 1);
    close(c);
    close(l);
    msleep(50);
    return port;
}

static void try_bind(int port, int reuse, const char *label)
{
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (reuse)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = lo_addr(port);
    show(label, bind(fd, (struct sockaddr *)&a, sizeof a));
    close(fd);
}

int main(void)
{
    lo_up();
    int p = server_closes_first(1);
    try_bind(p, 0, "rebind without SO_REUSEADDR");
    try_bind(p, 1, "rebind with SO_REUSEADDR");
    p = server_closes_first(0);
    try_bind(p, 1, "rebind, old listener without SO_REUSEADDR");

    int port = 0;
    int l = tcp_listener(&port);
    int c = tcp_connect(port);
    int s = accept(l, NULL, NULL);
    write(c, "unread", 6);
    msleep(50);
    close(s);
    msleep(50);
    char buf[8];
    show("peer closed with unread data: read", read(c, buf, sizeof buf));
    close(c);

    c = tcp_connect(port);
    s = accept(l, NULL, NULL);
    struct linger lg = {1, 0};
    setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(s);
    msleep(50);
    show("peer closed with SO_LINGER 0: read", read(c, buf, sizeof buf));
    show("read again", read(c, buf, sizeof buf));
    return 0;
}
