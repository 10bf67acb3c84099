/* One datagram per receive: MSG_PEEK|MSG_TRUNC with no buffer returns
 * the length of the next datagram (how `ip` sizes its buffer) and keeps
 * it; a smaller buffer gets part of it with MSG_TRUNC in msg_flags and
 * the rest is dropped; MSG_TRUNC makes recv return the full length;
 * recvmsg names the kernel (port 0). */
#include "nl.h"

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    struct ifinfomsg ifi = {.ifi_index = 1};
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 1, &ifi, sizeof ifi);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    out("poll: %d revents %#x", poll(&p, 1, 2000), p.revents);
    ssize_t peek = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
    out("peek|trunc positive: %s", yesno(peek > 0));
    int avail = -1;
    check("FIONREAD", ioctl(fd, FIONREAD, &avail));
    char buf[8192];
    ssize_t again = recv(fd, buf, sizeof buf, MSG_PEEK);
    out("peek again same: %s", yesno(again == peek));
    char small[20];
    struct iovec iov = {small, sizeof small};
    struct sockaddr_nl from;
    memset(&from, 0xff, sizeof from);
    struct msghdr m = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1};
    ssize_t n = recvmsg(fd, &m, 0);
    out("small recvmsg: %zd flags MSG_TRUNC %s namelen %d family %d pid %u groups %u", n, yesno(m.msg_flags & MSG_TRUNC), m.msg_namelen, from.nl_family, from.nl_pid, from.nl_groups);
    out("header type %s length equals peek: %s", msgtype(((struct nlmsghdr *)small)->nlmsg_type), yesno(((struct nlmsghdr *)small)->nlmsg_len == peek));
    n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    out("rest dropped: %s", n < 0 ? errname(errno) : "no");
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 2, &ifi, sizeof ifi);
    poll(&p, 1, 2000);
    n = recv(fd, small, sizeof small, MSG_TRUNC);
    out("recv MSG_TRUNC returns full length: %s", yesno(n == peek));
    n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    out("then: %s", n < 0 ? errname(errno) : "more");
    p.revents = 0;
    out("poll empty: %d", poll(&p, 1, 0));
    return 0;
}
