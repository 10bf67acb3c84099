/* SOL_IPV6 options of TCP and UDP sockets: defaults, values kept and
 * read back, Linux's EINVAL for values out of range, ENOPROTOOPT for an
 * unknown option, multicast options on a stream socket, and SOL_IPV6 on
 * an AF_INET socket. */
#include "inet6.h"

static void get(int fd, const char *label, int name)
{
    int v = -99;
    socklen_t len = sizeof v;
    if (getsockopt(fd, IPPROTO_IPV6, name, &v, &len) < 0)
        out("get %s: %s", label, errname(errno));
    else
        out("get %s: %d (len %d)", label, v, (int)len);
}

static void set(int fd, const char *label, int name, int v)
{
    if (setsockopt(fd, IPPROTO_IPV6, name, &v, sizeof v) < 0)
        out("set %s=%d: %s", label, v, errname(errno));
    else
        out("set %s=%d: ok", label, v);
}

static void each(int fd)
{
    get(fd, "IPV6_V6ONLY", IPV6_V6ONLY);
    get(fd, "IPV6_UNICAST_HOPS", IPV6_UNICAST_HOPS);
    set(fd, "IPV6_UNICAST_HOPS", IPV6_UNICAST_HOPS, 7);
    get(fd, "IPV6_UNICAST_HOPS", IPV6_UNICAST_HOPS);
    set(fd, "IPV6_UNICAST_HOPS", IPV6_UNICAST_HOPS, 256);
    set(fd, "IPV6_UNICAST_HOPS", IPV6_UNICAST_HOPS, -1);
    get(fd, "IPV6_UNICAST_HOPS", IPV6_UNICAST_HOPS);
    get(fd, "IPV6_MULTICAST_HOPS", IPV6_MULTICAST_HOPS);
    set(fd, "IPV6_MULTICAST_HOPS", IPV6_MULTICAST_HOPS, 5);
    set(fd, "IPV6_MULTICAST_HOPS", IPV6_MULTICAST_HOPS, 300);
    get(fd, "IPV6_MULTICAST_LOOP", IPV6_MULTICAST_LOOP);
    set(fd, "IPV6_MULTICAST_LOOP", IPV6_MULTICAST_LOOP, 2);
    get(fd, "IPV6_TCLASS", IPV6_TCLASS);
    set(fd, "IPV6_TCLASS", IPV6_TCLASS, 0x28);
    get(fd, "IPV6_TCLASS", IPV6_TCLASS);
    set(fd, "IPV6_TCLASS", IPV6_TCLASS, 256);
    set(fd, "IPV6_TCLASS", IPV6_TCLASS, -1);
    get(fd, "IPV6_TCLASS", IPV6_TCLASS);
    get(fd, "IPV6_RECVPKTINFO", IPV6_RECVPKTINFO);
    set(fd, "IPV6_RECVPKTINFO", IPV6_RECVPKTINFO, 1);
    get(fd, "IPV6_RECVPKTINFO", IPV6_RECVPKTINFO);
    set(fd, "IPV6_RECVTCLASS", IPV6_RECVTCLASS, 1);
    get(fd, "IPV6_RECVTCLASS", IPV6_RECVTCLASS);
    get(fd, "IPV6_MTU_DISCOVER", IPV6_MTU_DISCOVER);
    set(fd, "IPV6_MTU_DISCOVER", IPV6_MTU_DISCOVER, 9);
    set(fd, "option 200 (MRT6_INIT)", 200, 1);
    get(fd, "option 200 (MRT6_INIT)", 200);
    set(fd, "option 150", 150, 1);
    get(fd, "option 150", 150);
    short small = 1;
    show("set IPV6_V6ONLY with 2 bytes", setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &small, sizeof small));
    set(fd, "IPV6_V6ONLY", IPV6_V6ONLY, 5);
    get(fd, "IPV6_V6ONLY", IPV6_V6ONLY);
    int v = 0;
    socklen_t len = sizeof v;
    show("SOL_IP IP_TTL", getsockopt(fd, IPPROTO_IP, IP_TTL, &v, &len));
    out("IP_TTL %d", v);
}

int main(void)
{
    out("-- TCP");
    int t = socket(AF_INET6, SOCK_STREAM, 0);
    each(t);
    close(t);
    out("-- UDP");
    int u = socket(AF_INET6, SOCK_DGRAM, 0);
    each(u);
    close(u);
    out("-- AF_INET");
    int f = socket(AF_INET, SOCK_STREAM, 0);
    set(f, "IPV6_V6ONLY", IPV6_V6ONLY, 1);
    get(f, "IPV6_V6ONLY", IPV6_V6ONLY);
    close(f);
    int d = socket(AF_INET6, SOCK_STREAM, 0);
    int dom = 0;
    socklen_t len = sizeof dom;
    getsockopt(d, SOL_SOCKET, SO_DOMAIN, &dom, &len);
    out("SO_DOMAIN %s", dom == AF_INET6 ? "AF_INET6" : "other");
    show("socket(AF_INET6, SOCK_STREAM, IPPROTO_UDP)", socket(AF_INET6, SOCK_STREAM, IPPROTO_UDP));
    show("socket(AF_INET6, SOCK_SEQPACKET, 0)", socket(AF_INET6, SOCK_SEQPACKET, 0));
    int sp[2];
    show("socketpair(AF_INET6)", socketpair(AF_INET6, SOCK_STREAM, 0, sp));
    close(d);
    return 0;
}
