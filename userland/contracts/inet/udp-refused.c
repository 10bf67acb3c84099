/* A datagram to a UDP port nobody has bound is answered with ICMP port
 * unreachable: a connected socket then gets ECONNREFUSED from its next
 * receive (once) and POLLERR, or from SO_ERROR; an unconnected one hears
 * nothing. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int gone = bound_socket(SOCK_DGRAM, &port);
    close(gone);
    struct sockaddr_in to = lo_addr(port);
    char buf[8];

    int c = socket(AF_INET, SOCK_DGRAM, 0);
    check("connect", connect(c, (struct sockaddr *)&to, sizeof to));
    show("send to a closed port", send(c, "x", 1, 0));
    msleep(50);
    out("poll: %s", pollbits(poll_one(c, POLLIN | POLLOUT, 0)));
    show("recv", recv(c, buf, sizeof buf, MSG_DONTWAIT));
    show("recv again", recv(c, buf, sizeof buf, MSG_DONTWAIT));

    show("send again", send(c, "y", 1, 0));
    msleep(50);
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", errname(err));
    show("recv after SO_ERROR", recv(c, buf, sizeof buf, MSG_DONTWAIT));

    int u = socket(AF_INET, SOCK_DGRAM, 0);
    show("unconnected sendto a closed port", sendto(u, "z", 1, 0, (struct sockaddr *)&to, sizeof to));
    msleep(50);
    show("unconnected recv", recv(u, buf, sizeof buf, MSG_DONTWAIT));
    len = sizeof err;
    getsockopt(u, SOL_SOCKET, SO_ERROR, &err, &len);
    out("unconnected SO_ERROR: %s", errname(err));
    return 0;
}
