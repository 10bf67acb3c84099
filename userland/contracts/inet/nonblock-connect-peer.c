/* A non-blocking connect that poll reports done is connected without
 * another connect call: getpeername gives the listener's address (curl
 * reads it to decide whether a kept-alive connection can be reused), the
 * socket sends and receives, and getpeername still answers after the peer
 * closed its side. ENOTCONN before connecting and after a refused connect. */
#include "inet.h"

static void peer(const char *label, int fd, int want_port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    long r = getpeername(fd, (struct sockaddr *)&a, &len);
    if (r < 0) {
        out("%s: getpeername -1 %s", label, errname(errno));
        return;
    }
    out("%s: getpeername 0, len %u, family %s, %s, port %s", label, (unsigned)len,
        a.sin_family == AF_INET ? "AF_INET" : "other",
        a.sin_addr.s_addr == htonl(INADDR_LOOPBACK) ? "127.0.0.1" : "other address",
        ntohs(a.sin_port) == want_port ? "the listener's" : "other");
}

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    peer("before connect", c, port);
    struct sockaddr_in a = lo_addr(port);
    show("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    out("poll: %s", pollbits(poll_one(c, POLLOUT, 2000)));
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", errname(err));
    peer("after poll", c, port);
    show("send", send(c, "ping", 4, MSG_NOSIGNAL));
    int s = accept(l, NULL, NULL);
    check("accept", s);
    char b[8];
    poll_one(s, POLLIN, 2000);
    show("server read", read(s, b, sizeof b));
    show("server write", write(s, "pong", 4));
    poll_one(c, POLLIN, 2000);
    show("client read", read(c, b, sizeof b));
    peer("after data", c, port);
    show("connect again", connect(c, (struct sockaddr *)&a, sizeof a));
    close(s);
    poll_one(c, POLLIN, 2000);
    show("read after the peer closed", read(c, b, sizeof b));
    peer("after the peer closed", c, port);
    close(c);

    /* A second non-blocking connect, looked at only through getpeername. */
    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    show("connect 2", connect(c, (struct sockaddr *)&a, sizeof a));
    poll_one(c, POLLOUT, 2000);
    peer("second, after poll", c, port);
    close(c);

    /* Refused: no listener on the port any more. */
    close(l);
    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    show("connect to a closed port", connect(c, (struct sockaddr *)&a, sizeof a));
    out("poll: %s", pollbits(poll_one(c, POLLOUT, 2000)));
    peer("refused", c, port);
    len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", errname(err));
    peer("refused, after SO_ERROR", c, port);
    return 0;
}
