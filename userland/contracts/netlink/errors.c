/* Linux's errors for route changes it cannot make: EPERM without
 * CAP_NET_ADMIN, EINVAL for a short header, a missing IFA_LOCAL or a
 * prefix past 32, ENODEV for an unknown index, EADDRNOTAVAIL for
 * deleting an address lo does not have, ESRCH for deleting a route not
 * there, ENETUNREACH for a gateway on no link, EOPNOTSUPP for RTM_DELLINK
 * of lo, RTM_NEWLINK naming no link (ENODEV; EOPNOTSUPP with
 * NLM_F_CREATE: no kind given), EEXIST for RTM_NEWLINK of lo with
 * NLM_F_EXCL, for an IPv4 RTM_GETADDR without NLM_F_DUMP and for an address
 * or route request of a family without handlers. */
#include "nl.h"

static int fd;

static void req(const char *label, int type, int flags, void *body, size_t len)
{
    static unsigned seq;
    nl_send(fd, type, NLM_F_REQUEST | NLM_F_ACK | flags, ++seq, body, len);
    out("%s: %s", label, nlerr(nl_answers(fd, NULL, NULL)));
}

int main(void)
{
    lo_up();
    fd = nl_open(NETLINK_ROUTE);
    char body[128];
    size_t len;
    uint32_t a;
    struct ifaddrmsg *ifa = (struct ifaddrmsg *)body;
    memset(body, 0, sizeof body);
    req("NEWADDR family 0", RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, body, 2);
    body[0] = AF_INET;
    req("NEWADDR short", RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, body, 2);
    ifa->ifa_family = AF_INET;
    ifa->ifa_prefixlen = 24;
    ifa->ifa_index = 1;
    len = sizeof *ifa;
    req("NEWADDR without IFA_LOCAL", RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, body, len);
    a = htonl(0x0a090909);
    nl_attr(body, &len, IFA_LOCAL, &a, 4);
    ifa->ifa_prefixlen = 33;
    req("NEWADDR prefix 33", RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, body, len);
    ifa->ifa_prefixlen = 24;
    ifa->ifa_index = 999;
    req("NEWADDR index 999", RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, body, len);
    ifa->ifa_index = 1;
    req("DELADDR 10.9.9.9 from lo", RTM_DELADDR, 0, body, len);
    ifa->ifa_index = 999;
    req("DELADDR index 999", RTM_DELADDR, 0, body, len);
    ifa->ifa_index = 0;
    req("GETADDR without dump", RTM_GETADDR, 0, body, sizeof *ifa);
    struct ifinfomsg ifi = {.ifi_index = 1};
    req("DELLINK lo", RTM_DELLINK, 0, &ifi, sizeof ifi);
    ifi.ifi_index = 999;
    req("SETLINK index 999", RTM_SETLINK, 0, &ifi, sizeof ifi);
    ifi.ifi_index = 0;
    req("SETLINK naming no link", RTM_SETLINK, 0, &ifi, sizeof ifi);
    req("NEWLINK naming no link", RTM_NEWLINK, 0, &ifi, sizeof ifi);
    req("NEWLINK naming no link, CREATE", RTM_NEWLINK, NLM_F_CREATE, &ifi, sizeof ifi);
    ifi.ifi_index = 1;
    req("NEWLINK lo, EXCL", RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof ifi);
    memset(body, 0, sizeof body);
    struct rtmsg *r = (struct rtmsg *)body;
    req("NEWROUTE family 0", RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, body, 4);
    body[0] = AF_INET;
    req("NEWROUTE short", RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, body, 4);
    r->rtm_family = AF_INET;
    r->rtm_dst_len = 16;
    r->rtm_table = 254;
    r->rtm_protocol = 4;
    r->rtm_scope = 0;
    r->rtm_type = 1;
    len = sizeof *r;
    a = htonl(0x0a4d0000);
    nl_attr(body, &len, RTA_DST, &a, 4);
    req("DELROUTE 10.77.0.0/16", RTM_DELROUTE, 0, body, len);
    a = htonl(0xc0000201);
    nl_attr(body, &len, RTA_GATEWAY, &a, 4);
    req("NEWROUTE via 192.0.2.1", RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, body, len);
    /* Without CAP_NET_ADMIN: changes refused, reading allowed. */
    if (setuid(65534) < 0)
        out("setuid: %s", errname(errno));
    struct ifaddrmsg q = {.ifa_family = AF_INET};
    req("NEWADDR as nobody", RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &q, sizeof q);
    nl_send(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 99, &q, sizeof q);
    out("GETADDR dump as nobody: %s", nlerr(nl_answers(fd, NULL, NULL)));
    struct sockaddr_nl k = {.nl_family = AF_NETLINK, .nl_groups = 1};
    char hdr[16] = {16, 0, 1, 0, 1, 0};
    check("send to a group as nobody", sendto(fd, hdr, 16, 0, (struct sockaddr *)&k, sizeof k));
    return 0;
}
