/* poll/select readiness of TCP and UDP sockets through a connection's
 * life: fresh, listening, connected, with data, after the peer's FIN,
 * after both sides closed. */
#include "inet.h"
#include <sys/select.h>

int main(void)
{
    lo_up();
    int t = socket(AF_INET, SOCK_STREAM, 0);
    out("fresh tcp: %s", pollbits(poll_one(t, POLLIN | POLLOUT | POLLRDHUP, 0)));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    out("fresh udp: %s", pollbits(poll_one(u, POLLIN | POLLOUT | POLLRDHUP, 0)));
    int port = 0;
    int l = tcp_listener(&port);
    out("listener: %s", pollbits(poll_one(l, POLLIN | POLLOUT | POLLRDHUP, 0)));
    int c = tcp_connect(port);
    out("listener with a connection: %s", pollbits(poll_one(l, POLLIN | POLLOUT, 2000)));
    int s = accept(l, NULL, NULL);
    out("connected idle: %s", pollbits(poll_one(c, POLLIN | POLLOUT | POLLRDHUP, 0)));
    write(s, "x", 1);
    out("with data: %s", pollbits(poll_one(c, POLLIN | POLLRDHUP, 2000)));
    fd_set r, w;
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_SET(c, &r);
    FD_SET(c, &w);
    struct timeval tv = {0, 0};
    int n = select(c + 1, &r, &w, NULL, &tv);
    out("select: %d, readable %s, writable %s", n, yesno(FD_ISSET(c, &r)), yesno(FD_ISSET(c, &w)));
    char b;
    read(c, &b, 1);
    close(s);
    /* POLLOUT is ready at once: wait for the FIN first (loopback delivery
     * may lag), then look at every event. */
    poll_one(c, POLLIN, 2000);
    out("after peer close: %s", pollbits(poll_one(c, POLLIN | POLLOUT | POLLRDHUP, 0)));
    shutdown(c, SHUT_WR);
    msleep(50);
    out("after both closed: %s", pollbits(poll_one(c, POLLIN | POLLOUT | POLLRDHUP, 0)));
    int q = 0;
    int ub = bound_socket(SOCK_DGRAM, &q);
    struct sockaddr_in to = lo_addr(q);
    sendto(u, "d", 1, 0, (struct sockaddr *)&to, sizeof to);
    poll_one(ub, POLLIN, 2000);
    out("udp with a datagram: %s", pollbits(poll_one(ub, POLLIN | POLLOUT, 0)));
    return 0;
}
