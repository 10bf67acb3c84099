/* Routing notifications stay in their network namespace: a socket in the
 * first namespace subscribed to RTMGRP_LINK hears nothing when lo comes
 * up in another one, while a subscriber in that namespace hears the
 * RTM_NEWLINK for its lo (up). */
#include "netns.h"

static int subscriber(void)
{
    int fd = nl_open(NETLINK_ROUTE);
    struct sockaddr_nl a = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
    check("bind RTMGRP_LINK", bind(fd, (struct sockaddr *)&a, sizeof a));
    return fd;
}

static void heard(const char *label, int fd)
{
    static char buf[8192];
    int n = 0, up = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (poll(&p, 1, 500) > 0) {
        ssize_t len = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (len <= 0)
            break;
        struct nlmsghdr *h = (struct nlmsghdr *)buf;
        if (h->nlmsg_type == RTM_NEWLINK) {
            n++;
            struct ifinfomsg *ifi = (struct ifinfomsg *)(h + 1);
            up |= ifi->ifi_index == 1 && (ifi->ifi_flags & IFF_UP);
        }
    }
    out("%s: RTM_NEWLINK heard %s, lo up in it %s", label, yesno(n > 0), yesno(up));
}

int main(void)
{
    lo_up();
    int outer = subscriber();
    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
        int inner = subscriber();
        out("RTM_NEWLINK lo up: %s", nlerr(link_set_up(1, 1)));
        heard("new namespace's subscriber", inner);
        _exit(0);
    }
    reap("child", pid);
    heard("first namespace's subscriber", outer);
    return 0;
}
