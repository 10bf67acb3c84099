/* RTM_GETLINK: a dump lists lo (index 1) as NLM_F_MULTI RTM_NEWLINK
 * messages ended by NLMSG_DONE, with its type, flags and the attributes
 * `ip link` prints (name, MTU, qdisc, txqlen, operstate, addresses,
 * statistics); by index and by name it answers one message; ENODEV for an
 * unknown index or name; EINVAL for neither. */
#include "nl.h"

static void show_link(struct nlmsghdr *h, void *arg)
{
    (void)arg;
    struct ifinfomsg *ifi = (struct ifinfomsg *)(h + 1);
    char *at = NL_ATTRS(h, sizeof *ifi);
    int al = NL_ATTRLEN(h, sizeof *ifi);
    struct nlattr *name = nl_find(at, al, IFLA_IFNAME);
    if (!name || strcmp(NL_DATA(name), "lo"))
        return;
    out("%s flags %#x: index %d type %d up %s loopback %s running %s lower_up %s", msgtype(h->nlmsg_type), h->nlmsg_flags, ifi->ifi_index, ifi->ifi_type,
        yesno(ifi->ifi_flags & IFF_UP), yesno(ifi->ifi_flags & IFF_LOOPBACK), yesno(ifi->ifi_flags & IFF_RUNNING), yesno(ifi->ifi_flags & IFF_LOWER_UP));
    struct nlattr *a;
    if ((a = nl_find(at, al, IFLA_MTU)))
        out("  mtu %u", *(uint32_t *)NL_DATA(a));
    if ((a = nl_find(at, al, IFLA_TXQLEN)))
        out("  txqlen %u", *(uint32_t *)NL_DATA(a));
    if ((a = nl_find(at, al, IFLA_QDISC)))
        out("  qdisc %s", (char *)NL_DATA(a));
    if ((a = nl_find(at, al, IFLA_OPERSTATE)))
        out("  operstate %u", *(uint8_t *)NL_DATA(a));
    if ((a = nl_find(at, al, IFLA_ADDRESS))) {
        unsigned char *m = NL_DATA(a);
        out("  address len %d all zero %s", a->nla_len - 4, yesno(!(m[0] | m[1] | m[2] | m[3] | m[4] | m[5])));
    }
    out("  broadcast %s stats %s stats64 %s", yesno(nl_find(at, al, IFLA_BROADCAST) != NULL), yesno(nl_find(at, al, IFLA_STATS) != NULL), yesno(nl_find(at, al, IFLA_STATS64) != NULL));
}

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    struct ifinfomsg ifi = {0};
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 1, &ifi, sizeof ifi);
    out("dump: %s", nlerr(nl_answers(fd, show_link, NULL)));
    /* The old form: just the family (rtgenmsg). */
    unsigned char fam = AF_UNSPEC;
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 2, &fam, 1);
    out("rtgenmsg dump: %s", nlerr(nl_answers(fd, show_link, NULL)));
    ifi.ifi_index = 1;
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 3, &ifi, sizeof ifi);
    out("index 1: %s", nlerr(nl_answers(fd, show_link, NULL)));
    char body[64];
    size_t len = sizeof ifi;
    memset(body, 0, sizeof body);
    nl_attr(body, &len, IFLA_IFNAME, "lo", 3);
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 4, body, len);
    out("name lo: %s", nlerr(nl_answers(fd, show_link, NULL)));
    ifi.ifi_index = 999;
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 5, &ifi, sizeof ifi);
    out("index 999: %s", nlerr(nl_answers(fd, show_link, NULL)));
    len = sizeof ifi;
    memset(body, 0, sizeof body);
    nl_attr(body, &len, IFLA_IFNAME, "nosuch0", 8);
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 6, body, len);
    out("name nosuch0: %s", nlerr(nl_answers(fd, show_link, NULL)));
    ifi.ifi_index = 0;
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 7, &ifi, sizeof ifi);
    out("neither: %s", nlerr(nl_answers(fd, show_link, NULL)));
    return 0;
}
