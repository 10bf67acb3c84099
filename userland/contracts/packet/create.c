/* socket(AF_PACKET): the types it takes (SOCK_RAW, SOCK_DGRAM) and
 * refuses (ESOCKTNOSUPPORT), CAP_NET_RAW (EPERM for another user), the
 * socket options naming it, getsockname before and after binding to lo
 * (sockaddr_ll up to the hardware address), bind's errors, and the calls
 * a packet socket does not have (EOPNOTSUPP). */
#include "packet.h"

int main(void)
{
    check("SOCK_STREAM", socket(AF_PACKET, SOCK_STREAM, 0));
    check("SOCK_SEQPACKET", socket(AF_PACKET, SOCK_SEQPACKET, 0));
    int raw = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    check("SOCK_RAW ETH_P_ALL", raw);
    int dgram = socket(AF_PACKET, SOCK_DGRAM, 0);
    check("SOCK_DGRAM 0", dgram);
    int v;
    socklen_t l = sizeof v;
    getsockopt(raw, SOL_SOCKET, SO_TYPE, &v, &l);
    out("SO_TYPE %d", v);
    getsockopt(raw, SOL_SOCKET, SO_DOMAIN, &v, &l);
    out("SO_DOMAIN %d", v);
    getsockopt(raw, SOL_SOCKET, SO_PROTOCOL, &v, &l);
    out("SO_PROTOCOL 0x%x", v);
    int sv[2];
    check("socketpair", socketpair(AF_PACKET, SOCK_RAW, 0, sv));

    struct sockaddr_ll a;
    memset(&a, 0x55, sizeof a);
    l = sizeof a;
    check("getsockname unbound", getsockname(raw, (struct sockaddr *)&a, &l));
    out("  len %d family %d protocol 0x%04x ifindex %d hatype %d halen %d", (int)l, a.sll_family, ntohs(a.sll_protocol),
        a.sll_ifindex, a.sll_hatype, a.sll_halen);

    struct sockaddr_ll b = ll_addr(lo_index(), 0);
    check("bind short", bind(raw, (struct sockaddr *)&b, sizeof b - 1));
    b.sll_family = AF_INET;
    check("bind AF_INET", bind(raw, (struct sockaddr *)&b, sizeof b));
    b = ll_addr(9999, 0);
    check("bind ifindex 9999", bind(raw, (struct sockaddr *)&b, sizeof b));
    b = ll_addr(lo_index(), 0);
    check("bind lo, protocol 0", bind(raw, (struct sockaddr *)&b, sizeof b));
    l = sizeof a;
    check("getsockname", getsockname(raw, (struct sockaddr *)&a, &l));
    out("  len %d family %d protocol 0x%04x ifindex-lo %s hatype %d pkttype %d halen %d", (int)l, a.sll_family,
        ntohs(a.sll_protocol), yesno(a.sll_ifindex == lo_index()), a.sll_hatype, a.sll_pkttype, a.sll_halen);
    b = ll_addr(0, ETH_P_IP);
    check("bind any, ETH_P_IP", bind(dgram, (struct sockaddr *)&b, sizeof b));
    l = sizeof a;
    getsockname(dgram, (struct sockaddr *)&a, &l);
    out("  len %d protocol 0x%04x ifindex %d", (int)l, ntohs(a.sll_protocol), a.sll_ifindex);
    getsockopt(dgram, SOL_SOCKET, SO_PROTOCOL, &v, &l);

    l = sizeof a;
    check("getpeername", getpeername(raw, (struct sockaddr *)&a, &l));
    check("listen", listen(raw, 1));
    check("accept", accept(raw, NULL, NULL));
    struct sockaddr_ll c = ll_addr(lo_index(), ETH_P_IP);
    check("connect", connect(raw, (struct sockaddr *)&c, sizeof c));
    check("shutdown", shutdown(raw, SHUT_RDWR));
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    check("SIOCGIFINDEX lo", ioctl(raw, SIOCGIFINDEX, &r));
    out("  index-lo %s", yesno(r.ifr_ifindex == lo_index()));
    check("SIOCGIFHWADDR lo", ioctl(raw, SIOCGIFHWADDR, &r));
    out("  family %d", r.ifr_hwaddr.sa_family);

    pid_t pid = fork();
    if (pid == 0) {
        if (setuid(1000) < 0)
            out("setuid: %s", errname(errno));
        check("as uid 1000: SOCK_RAW", socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)));
        check("as uid 1000: SOCK_DGRAM", socket(AF_PACKET, SOCK_DGRAM, 0));
        check("as uid 1000: SOCK_STREAM", socket(AF_PACKET, SOCK_STREAM, 0));
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return 0;
}
