/* socket(AF_NETLINK): SOCK_RAW and SOCK_DGRAM of NETLINK_ROUTE,
 * NETLINK_KOBJECT_UEVENT and NETLINK_USERSOCK; ESOCKTNOSUPPORT for other
 * types, EPROTONOSUPPORT for protocols out of range or never registered;
 * SO_DOMAIN/SO_TYPE/SO_PROTOCOL; what netlink refuses (socketpair,
 * listen, accept, shutdown, MSG_OOB). */
#include "nl.h"

static void try(const char *label, int type, int proto)
{
    int fd = socket(AF_NETLINK, type, proto);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    int v;
    socklen_t l = sizeof v;
    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l);
    out("%s: ok, domain %d", label, v);
    getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l);
    out("  type %d", v);
    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l);
    out("  protocol %d", v);
    close(fd);
}

int main(void)
{
    try("raw route", SOCK_RAW, NETLINK_ROUTE);
    try("dgram route", SOCK_DGRAM, NETLINK_ROUTE);
    try("raw uevent", SOCK_RAW, NETLINK_KOBJECT_UEVENT);
    try("dgram usersock", SOCK_DGRAM, NETLINK_USERSOCK);
    try("stream route", SOCK_STREAM, NETLINK_ROUTE);
    try("seqpacket route", SOCK_SEQPACKET, NETLINK_ROUTE);
    try("protocol 32", SOCK_RAW, 32);
    try("protocol -1", SOCK_RAW, -1);
    try("protocol NETLINK_UNUSED", SOCK_RAW, NETLINK_UNUSED);
    int sv[2];
    check("socketpair", socketpair(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, sv));
    int fd = nl_open(NETLINK_ROUTE);
    check("listen", listen(fd, 1));
    check("accept", accept(fd, NULL, NULL));
    check("shutdown", shutdown(fd, SHUT_RDWR));
    char c = 0;
    check("send MSG_OOB", send(fd, &c, 1, MSG_OOB));
    check("recv MSG_OOB", recv(fd, &c, 1, MSG_OOB | MSG_DONTWAIT));
    return 0;
}
