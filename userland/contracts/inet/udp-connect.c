/* A connected UDP socket: send without an address goes to the peer,
 * datagrams from other senders are not received, getpeername reports
 * the peer, and connecting to AF_UNSPEC dissolves the association. */
#include "inet.h"

int main(void)
{
    lo_up();
    int aport = 0, bport = 0, cport = 0;
    int a = bound_socket(SOCK_DGRAM, &aport);
    int b = bound_socket(SOCK_DGRAM, &bport);
    int c = bound_socket(SOCK_DGRAM, &cport);
    struct sockaddr_in to_b = lo_addr(bport), to_a = lo_addr(aport);
    check("connect a to b", connect(a, (struct sockaddr *)&to_b, sizeof to_b));
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    check("getpeername", getpeername(a, (struct sockaddr *)&peer, &len));
    out("peer port is b: %s", yesno(ntohs(peer.sin_port) == bport));
    show("send to peer", send(a, "to-b", 4, 0));
    char buf[16];
    ssize_t n = recv(b, buf, sizeof buf, 0);
    out("b got %zd: %.*s", n, (int)n, buf);
    show("c sends to a", sendto(c, "from-c", 6, 0, (struct sockaddr *)&to_a, sizeof to_a));
    show("b sends to a", sendto(b, "from-b", 6, 0, (struct sockaddr *)&to_a, sizeof to_a));
    n = recv(a, buf, sizeof buf, 0);
    out("a got %zd: %.*s", n, (int)n, buf);
    show("a has nothing more", recv(a, buf, sizeof buf, MSG_DONTWAIT));
    struct sockaddr unspec;
    memset(&unspec, 0, sizeof unspec);
    unspec.sa_family = AF_UNSPEC;
    check("connect AF_UNSPEC", connect(a, &unspec, sizeof unspec));
    len = sizeof peer;
    check("getpeername after", getpeername(a, (struct sockaddr *)&peer, &len));
    show("send without address after", send(a, "x", 1, 0));
    int fresh = socket(AF_INET, SOCK_DGRAM, 0);
    check("connect unbound", connect(fresh, (struct sockaddr *)&to_b, sizeof to_b));
    struct sockaddr_in me;
    len = sizeof me;
    getsockname(fresh, (struct sockaddr *)&me, &len);
    out("connected name: %s, port in range: %s", inet_ntoa(me.sin_addr), yesno(ntohs(me.sin_port) >= 32768 && ntohs(me.sin_port) <= 60999));
    return 0;
}
