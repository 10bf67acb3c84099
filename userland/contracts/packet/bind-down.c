/* Binding a packet socket to an interface that is down succeeds and
 * leaves ENETDOWN pending (SO_ERROR, poll's POLLERR, the next receive);
 * with protocol 0 nothing is pending. The socket gets lo's frames once lo
 * is up again. */
#include "packet.h"

int main(void)
{
    lo_set(0);
    int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_TEST));
    struct sockaddr_ll a = ll_addr(lo_index(), 0);
    check("bind lo down", bind(fd, (struct sockaddr *)&a, sizeof a));
    struct pollfd p = {.fd = fd, .events = POLLIN};
    out("poll %d revents 0x%x", poll(&p, 1, 0), p.revents);
    char buf[64];
    show("recv", recv(fd, buf, sizeof buf, MSG_DONTWAIT));
    show("recv again", recv(fd, buf, sizeof buf, MSG_DONTWAIT));
    check("bind lo down again", bind(fd, (struct sockaddr *)&a, sizeof a));
    int e = -1;
    socklen_t l = sizeof e;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
    out("SO_ERROR %s", e ? errname(e) : "0");
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
    out("SO_ERROR %s", e ? errname(e) : "0");
    int none = socket(AF_PACKET, SOCK_RAW, 0);
    check("bind lo down, protocol 0", bind(none, (struct sockaddr *)&a, sizeof a));
    getsockopt(none, SOL_SOCKET, SO_ERROR, &e, &l);
    out("SO_ERROR %s", e ? errname(e) : "0");
    lo_set(1);
    check("bind lo up", bind(fd, (struct sockaddr *)&a, sizeof a));
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
    out("SO_ERROR %s", e ? errname(e) : "0");
    unsigned char f[60] = {0};
    f[12] = ETH_P_TEST >> 8;
    f[13] = ETH_P_TEST & 0xff;
    struct sockaddr_ll to = ll_addr(lo_index(), ETH_P_TEST);
    show("send", sendto(fd, f, sizeof f, 0, (struct sockaddr *)&to, sizeof to));
    out("got it %s", yesno(wait_in(fd)));
    show("recv", recv(fd, buf, sizeof buf, MSG_DONTWAIT));
    return 0;
}
