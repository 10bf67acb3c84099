/* SOL_NETLINK options: the flags iproute2 and systemd set (EXT_ACK,
 * GET_STRICT_CHK, CAP_ACK, PKTINFO, NO_ENOBUFS, BROADCAST_ERROR) read
 * back; ENOPROTOOPT for unknown ones and other levels; EINVAL for a
 * short getsockopt; group membership with NETLINK_ADD_MEMBERSHIP and
 * NETLINK_LIST_MEMBERSHIPS (EINVAL for group 0 and past the family's
 * last); SO_RCVBUF doubled. */
#include "nl.h"

static void flag(int fd, const char *name, int opt)
{
    int on = 1, v = -1;
    socklen_t l = sizeof v;
    int r = setsockopt(fd, SOL_NETLINK, opt, &on, sizeof on);
    int g = getsockopt(fd, SOL_NETLINK, opt, &v, &l);
    out("%s: set %s get %s value %d len %d", name, r ? errname(errno) : "0", g ? errname(errno) : "0", v, (int)l);
}

static void members(int fd, const char *label)
{
    uint32_t w[4] = {0xdead, 0xdead, 0xdead, 0xdead};
    socklen_t l = sizeof w;
    int r = getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, w, &l);
    out("%s: %s len %d words %#x %#x", label, r ? errname(errno) : "0", (int)l, w[0], w[1]);
}

int main(void)
{
    int fd = nl_open(NETLINK_ROUTE);
    flag(fd, "NETLINK_EXT_ACK", NETLINK_EXT_ACK);
    flag(fd, "NETLINK_GET_STRICT_CHK", NETLINK_GET_STRICT_CHK);
    flag(fd, "NETLINK_CAP_ACK", NETLINK_CAP_ACK);
    flag(fd, "NETLINK_PKTINFO", NETLINK_PKTINFO);
    flag(fd, "NETLINK_NO_ENOBUFS", NETLINK_NO_ENOBUFS);
    flag(fd, "NETLINK_BROADCAST_ERROR", NETLINK_BROADCAST_ERROR);
    flag(fd, "NETLINK_RX_RING", NETLINK_RX_RING);
    flag(fd, "option 99", 99);
    int off = 0, v = 0;
    check("EXT_ACK off", setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &off, sizeof off));
    socklen_t l = sizeof v;
    getsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, &l);
    out("EXT_ACK now %d", v);
    char c = 1;
    check("set with a 1-byte value", setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &c, 1));
    l = 2;
    check("get with 2 bytes", getsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, &l));
    check("SOL_IP level", setsockopt(fd, SOL_IP, NETLINK_EXT_ACK, &v, sizeof v));
    l = sizeof v;
    check("get at SOL_IP", getsockopt(fd, SOL_IP, NETLINK_EXT_ACK, &v, &l));
    members(fd, "memberships at first");
    int g = 1;
    check("ADD_MEMBERSHIP 1", setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    g = 36;
    check("ADD_MEMBERSHIP 36", setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    g = 37;
    check("ADD_MEMBERSHIP 37", setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    g = 0;
    check("ADD_MEMBERSHIP 0", setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    members(fd, "memberships");
    uint32_t one;
    l = 4;
    check("LIST_MEMBERSHIPS in 4 bytes", getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, &one, &l));
    out("  len %d word %#x", (int)l, one);
    g = 1;
    check("DROP_MEMBERSHIP 1", setsockopt(fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &g, sizeof g));
    members(fd, "after drop");
    struct sockaddr_nl sa;
    l = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &l);
    out("getsockname groups %#x (bound: %s)", sa.nl_groups, yesno(sa.nl_pid != 0));
    int ue = nl_open(NETLINK_KOBJECT_UEVENT);
    g = 32;
    check("uevent ADD_MEMBERSHIP 32", setsockopt(ue, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    g = 33;
    check("uevent ADD_MEMBERSHIP 33", setsockopt(ue, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    members(ue, "uevent memberships");
    int rb = 32768;
    check("SO_RCVBUF", setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof rb));
    l = sizeof rb;
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, &l);
    out("SO_RCVBUF reads %d", rb);
    return 0;
}
