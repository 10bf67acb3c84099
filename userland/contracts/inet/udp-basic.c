/* UDP on loopback: datagram boundaries kept, the sender's address from
 * recvfrom, MSG_PEEK, truncation (the rest is dropped; MSG_TRUNC gives
 * the real length; recvmsg sets MSG_TRUNC), empty datagrams, EMSGSIZE,
 * and EDESTADDRREQ without a destination. */
#include "inet.h"

int main(void)
{
    lo_up();
    int rport = 0, sport = 0;
    int r = bound_socket(SOCK_DGRAM, &rport);
    int s = bound_socket(SOCK_DGRAM, &sport);
    struct sockaddr_in to = lo_addr(rport);
    show("send 5", sendto(s, "first", 5, 0, (struct sockaddr *)&to, sizeof to));
    show("send 11", sendto(s, "second-long", 11, 0, (struct sockaddr *)&to, sizeof to));
    show("send 0", sendto(s, "", 0, 0, (struct sockaddr *)&to, sizeof to));
    show("send 20", sendto(s, "abcdefghijklmnopqrst", 20, 0, (struct sockaddr *)&to, sizeof to));
    char buf[64];
    struct sockaddr_in from;
    socklen_t len = sizeof from;
    show("peek", recv(r, buf, sizeof buf, MSG_PEEK));
    ssize_t n = recvfrom(r, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    out("recv %zd: %.*s, from port matches: %s, addr %s, len %d", n, (int)n, buf, yesno(ntohs(from.sin_port) == sport), inet_ntoa(from.sin_addr), (int)len);
    n = recv(r, buf, 6, 0);
    out("truncated recv %zd: %.*s", n, (int)n, buf);
    show("empty datagram", recv(r, buf, sizeof buf, 0));
    struct iovec iov = {buf, 4};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    n = recvmsg(r, &mh, MSG_TRUNC);
    out("recvmsg MSG_TRUNC: %zd, flags MSG_TRUNC: %s, data %.4s", n, yesno(mh.msg_flags & MSG_TRUNC), buf);
    show("nothing left (MSG_DONTWAIT)", recv(r, buf, sizeof buf, MSG_DONTWAIT));
    static char big[65508];
    show("65507 bytes", sendto(s, big, 65507, 0, (struct sockaddr *)&to, sizeof to));
    show("65508 bytes", sendto(s, big, 65508, 0, (struct sockaddr *)&to, sizeof to));
    show("big datagram arrives", recv(r, big, sizeof big, 0));
    show("send without destination", send(s, "x", 1, 0));
    int fresh = socket(AF_INET, SOCK_DGRAM, 0);
    show("unbound sender autobinds", sendto(fresh, "auto", 4, 0, (struct sockaddr *)&to, sizeof to));
    int p = port_of(fresh);
    out("autobound port in range: %s", yesno(p >= 32768 && p <= 60999));
    len = sizeof from;
    n = recvfrom(r, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    out("from autobound: %zd, port matches: %s", n, yesno(ntohs(from.sin_port) == p));
    return 0;
}
