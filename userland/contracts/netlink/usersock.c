/* NETLINK_USERSOCK between user sockets: a datagram to another socket's
 * port arrives named with the sender's port; ECONNREFUSED for a port no
 * socket has; a connected receiver takes only from its peer; a group
 * send reaches the group's members. */
#include "nl.h"

static uint32_t port(int fd)
{
    struct sockaddr_nl a;
    socklen_t l = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &l);
    return a.nl_pid;
}

int main(void)
{
    int a = nl_open(NETLINK_USERSOCK), b = nl_open(NETLINK_USERSOCK), c = nl_open(NETLINK_USERSOCK);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    bind(a, (struct sockaddr *)&sa, sizeof sa);
    bind(b, (struct sockaddr *)&sa, sizeof sa);
    sa.nl_groups = 4;
    bind(c, (struct sockaddr *)&sa, sizeof sa);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = port(b)};
    out("a to b: %zd", sendto(a, "hello", 5, 0, (struct sockaddr *)&to, sizeof to));
    char buf[64];
    struct sockaddr_nl from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(b, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
    out("b got %zd from a: %s groups %u", n, yesno(from.nl_pid == port(a)), from.nl_groups);
    to.nl_pid = 0x7fff0001;
    check("to a port nobody has", sendto(a, "x", 1, 0, (struct sockaddr *)&to, sizeof to));
    to.nl_pid = port(a);
    check("b connects to a", connect(b, (struct sockaddr *)&to, sizeof to));
    to.nl_pid = port(b);
    check("c to connected b", sendto(c, "x", 1, 0, (struct sockaddr *)&to, sizeof to));
    out("a to connected b: %zd", sendto(a, "y", 1, 0, (struct sockaddr *)&to, sizeof to));
    n = recv(b, buf, sizeof buf, MSG_DONTWAIT);
    out("b got %zd", n);
    to.nl_pid = port(b);
    to.nl_groups = 4;
    out("a to b and group 3: %zd", sendto(a, "zz", 2, 0, (struct sockaddr *)&to, sizeof to));
    fl = sizeof from;
    n = recvfrom(c, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
    out("c got %zd groups %u from a %s", n, from.nl_groups, yesno(from.nl_pid == port(a)));
    n = recv(b, buf, sizeof buf, MSG_DONTWAIT);
    out("b got %zd", n);
    return 0;
}
