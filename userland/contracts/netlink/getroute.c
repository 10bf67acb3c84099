/* RTM_GETROUTE dumps of IPv4: with only lo up, the main table is empty
 * and the local table holds lo's routes (local 127.0.0.0/8, local
 * 127.0.0.1, broadcast 127.255.255.255), in that order, proto kernel,
 * with their scopes and preferred source; the table filter of a strict
 * dump. */
#include "nl.h"
#include <arpa/inet.h>

static void show_route(struct nlmsghdr *h, void *arg)
{
    (void)arg;
    struct rtmsg *r = (struct rtmsg *)(h + 1);
    char *at = NL_ATTRS(h, sizeof *r);
    int al = NL_ATTRLEN(h, sizeof *r);
    struct nlattr *a;
    char dst[20] = "default", src[20] = "-";
    if ((a = nl_find(at, al, RTA_DST)))
        strcpy(dst, inet_ntoa(*(struct in_addr *)NL_DATA(a)));
    if ((a = nl_find(at, al, RTA_PREFSRC)))
        strcpy(src, inet_ntoa(*(struct in_addr *)NL_DATA(a)));
    a = nl_find(at, al, RTA_TABLE);
    a = a ? a : NULL;
    struct nlattr *oif = nl_find(at, al, RTA_OIF);
    out("%s table %d/%u type %d %s/%d scope %d proto %d src %s oif %u gateway %s", msgtype(h->nlmsg_type), r->rtm_table, a ? *(uint32_t *)NL_DATA(a) : 0, r->rtm_type, dst, r->rtm_dst_len, r->rtm_scope,
        r->rtm_protocol, src, oif ? *(uint32_t *)NL_DATA(oif) : 0, yesno(nl_find(at, al, RTA_GATEWAY) != NULL));
}

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    struct rtmsg r = {.rtm_family = AF_INET};
    nl_send(fd, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 1, &r, sizeof r);
    out("dump: %s", nlerr(nl_answers(fd, show_route, NULL)));
    int on = 1;
    check("NETLINK_GET_STRICT_CHK", setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &on, sizeof on));
    r.rtm_table = 254;
    nl_send(fd, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 2, &r, sizeof r);
    out("strict dump of main: %s", nlerr(nl_answers(fd, show_route, NULL)));
    r.rtm_table = 255;
    nl_send(fd, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 3, &r, sizeof r);
    out("strict dump of local: %s", nlerr(nl_answers(fd, show_route, NULL)));
    return 0;
}
