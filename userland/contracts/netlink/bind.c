/* bind and getsockname on netlink sockets: port 0 before binding; bind
 * with nl_pid 0 takes the process's pid, a second socket a negative
 * port; an explicit port, EADDRINUSE for a taken one, EINVAL for a
 * short address, another family, or another port once bound; groups
 * in getsockname; getpeername and connect. */
#include "nl.h"

static void name(const char *label, int fd, int peer)
{
    struct sockaddr_nl a;
    memset(&a, 0xff, sizeof a);
    socklen_t l = sizeof a + 4;
    int r = peer ? getpeername(fd, (struct sockaddr *)&a, &l) : getsockname(fd, (struct sockaddr *)&a, &l);
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    const char *pid = a.nl_pid == 0 ? "0" : a.nl_pid == (uint32_t)getpid() ? "our pid" : (int)a.nl_pid < 0 ? "negative" : "other";
    out("%s: len %d family %d pad %d pid %s groups %#x", label, (int)l, a.nl_family, a.nl_pad, pid, a.nl_groups);
}

int main(void)
{
    int a = nl_open(NETLINK_ROUTE), b = nl_open(NETLINK_ROUTE), c = nl_open(NETLINK_ROUTE);
    name("unbound", a, 0);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    check("bind a pid 0", bind(a, (struct sockaddr *)&sa, sizeof sa));
    name("a", a, 0);
    check("bind b pid 0", bind(b, (struct sockaddr *)&sa, sizeof sa));
    name("b", b, 0);
    sa.nl_pid = getpid();
    check("bind c to a's port", bind(c, (struct sockaddr *)&sa, sizeof sa));
    sa.nl_pid = 0x7ffff123;
    check("bind c short", bind(c, (struct sockaddr *)&sa, sizeof sa - 1));
    sa.nl_family = AF_INET;
    check("bind c AF_INET", bind(c, (struct sockaddr *)&sa, sizeof sa));
    sa.nl_family = AF_NETLINK;
    check("bind c free port", bind(c, (struct sockaddr *)&sa, sizeof sa));
    struct sockaddr_nl got;
    socklen_t l = sizeof got;
    getsockname(c, (struct sockaddr *)&got, &l);
    out("c port as asked: %s", yesno(got.nl_pid == 0x7ffff123));
    sa.nl_pid = 0x7ffff124;
    check("rebind c another port", bind(c, (struct sockaddr *)&sa, sizeof sa));
    sa.nl_pid = 0x7ffff123;
    sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR;
    check("rebind c same port with groups", bind(c, (struct sockaddr *)&sa, sizeof sa));
    l = sizeof got;
    getsockname(c, (struct sockaddr *)&got, &l);
    out("c groups %#x", got.nl_groups);
    sa.nl_groups = 0;
    check("rebind c no groups", bind(c, (struct sockaddr *)&sa, sizeof sa));
    l = sizeof got;
    getsockname(c, (struct sockaddr *)&got, &l);
    out("c groups %#x", got.nl_groups);
    name("peer of a", a, 1);
    int d = nl_open(NETLINK_ROUTE);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = 0x7ffff123};
    check("connect d", connect(d, (struct sockaddr *)&to, sizeof to));
    name("d autobound", d, 0);
    l = sizeof got;
    getpeername(d, (struct sockaddr *)&got, &l);
    out("peer of d is c: %s", yesno(got.nl_pid == 0x7ffff123));
    struct sockaddr unspec = {.sa_family = AF_UNSPEC};
    check("connect d AF_UNSPEC", connect(d, &unspec, sizeof unspec));
    name("peer of d", d, 1);
    close(a);
    int e = nl_open(NETLINK_ROUTE);
    sa.nl_pid = getpid();
    sa.nl_groups = 0;
    check("bind e to closed a's port", bind(e, (struct sockaddr *)&sa, sizeof sa));
    int u = nl_open(NETLINK_USERSOCK);
    check("bind usersock to the same port", bind(u, (struct sockaddr *)&sa, sizeof sa));
    return 0;
}
