/* Notifications: a socket in RTNLGRP_LINK hears an RTM_NEWLINK from the
 * kernel (port 0, nl_groups 1, NETLINK_PKTINFO group 1) when lo's MTU
 * changes, and becomes readable for poll and epoll; a socket not in the
 * group and the requester hear only their own answers. */
#include "nl.h"
#include <sys/epoll.h>

static int set_mtu(int fd, unsigned mtu, unsigned seq)
{
    char body[64];
    memset(body, 0, sizeof body);
    struct ifinfomsg *ifi = (struct ifinfomsg *)body;
    ifi->ifi_index = 1;
    size_t len = sizeof *ifi;
    nl_attr(body, &len, IFLA_MTU, &mtu, 4);
    nl_send(fd, RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, seq, body, len);
    return nl_answers(fd, NULL, NULL);
}

int main(void)
{
    lo_up();
    int listener = nl_open(NETLINK_ROUTE), other = nl_open(NETLINK_ROUTE), req = nl_open(NETLINK_ROUTE);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
    check("bind to RTMGRP_LINK", bind(listener, (struct sockaddr *)&sa, sizeof sa));
    sa.nl_groups = RTMGRP_IPV4_IFADDR;
    check("bind other to RTMGRP_IPV4_IFADDR", bind(other, (struct sockaddr *)&sa, sizeof sa));
    int on = 1;
    setsockopt(listener, SOL_NETLINK, NETLINK_PKTINFO, &on, sizeof on);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN};
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    struct pollfd p = {.fd = listener, .events = POLLIN};
    out("before: poll %d epoll %d", poll(&p, 1, 0), epoll_wait(ep, &ev, 1, 0));
    out("set mtu 65535: %s", nlerr(set_mtu(req, 65535, 1)));
    out("after: poll %d revents %#x epoll %d", poll(&p, 1, 2000), p.revents, epoll_wait(ep, &ev, 1, 1000));
    char buf[8192], cbuf[64];
    struct sockaddr_nl from;
    struct iovec iov = {buf, sizeof buf};
    struct msghdr m = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    ssize_t n = recvmsg(listener, &m, MSG_DONTWAIT);
    if (n > 0) {
        struct nlmsghdr *h = (struct nlmsghdr *)buf;
        struct ifinfomsg *ifi = (struct ifinfomsg *)(h + 1);
        struct nlattr *mtu = nl_find(NL_ATTRS(h, sizeof *ifi), NL_ATTRLEN(h, sizeof *ifi), IFLA_MTU);
        out("heard %s seq %u pid %u index %d mtu %u from pid %u groups %u", msgtype(h->nlmsg_type), h->nlmsg_seq, h->nlmsg_pid, ifi->ifi_index, mtu ? *(uint32_t *)NL_DATA(mtu) : 0, from.nl_pid, from.nl_groups);
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            out("  cmsg level %d type %d group %u", c->cmsg_level, c->cmsg_type, *(uint32_t *)CMSG_DATA(c));
    } else {
        out("heard nothing: %s", errname(errno));
    }
    n = recv(listener, buf, sizeof buf, MSG_DONTWAIT);
    out("more: %s", n < 0 ? errname(errno) : "yes");
    n = recv(other, buf, sizeof buf, MSG_DONTWAIT);
    out("other group: %s", n < 0 ? errname(errno) : "heard");
    n = recv(req, buf, sizeof buf, MSG_DONTWAIT);
    out("requester after its ack: %s", n < 0 ? errname(errno) : "more");
    out("set mtu back: %s", nlerr(set_mtu(req, 65536, 2)));
    n = recv(listener, buf, sizeof buf, MSG_DONTWAIT);
    out("heard the change back: %s", n > 0 ? msgtype(((struct nlmsghdr *)buf)->nlmsg_type) : errname(errno));
    out("set same mtu: %s", nlerr(set_mtu(req, 65536, 3)));
    n = recv(listener, buf, sizeof buf, MSG_DONTWAIT);
    out("heard for no change: %s", n < 0 ? errname(errno) : "yes");
    return 0;
}
