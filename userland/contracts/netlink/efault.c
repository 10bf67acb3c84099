/* Bad pointers: EFAULT from bind's address, sendto's buffer and address,
 * getsockname's length, setsockopt's value, getsockopt's length and
 * recv's buffer (and whether the answer is still queued after it). */
#include "nl.h"

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    check("bind bad address", bind(fd, (struct sockaddr *)8, 12));
    struct sockaddr_nl k = {.nl_family = AF_NETLINK};
    check("sendto bad buffer", sendto(fd, (void *)8, 32, 0, (struct sockaddr *)&k, sizeof k));
    check("sendto bad address", sendto(fd, "x", 1, 0, (struct sockaddr *)8, 12));
    check("getsockname bad length", getsockname(fd, (struct sockaddr *)&k, (socklen_t *)8));
    check("setsockopt bad value", setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, (void *)8, 4));
    int v;
    check("getsockopt bad length", getsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, (socklen_t *)8));
    struct ifinfomsg ifi = {.ifi_index = 1};
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 1, &ifi, sizeof ifi);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    poll(&p, 1, 2000);
    check("recv bad buffer", recv(fd, (void *)8, 4096, 0));
    p.revents = 0;
    out("still readable: %d", poll(&p, 1, 0));
    return 0;
}
