/* RTM_GETADDR for AF_INET6 once lo is up: lo's ::1/128, host scope,
 * permanent, with IFA_ADDRESS, IFA_CACHEINFO (infinite lifetimes),
 * IFA_FLAGS and IFA_PROTO (IFAPROT_KERNEL_LO), in the order Linux puts
 * them; an AF_UNSPEC dump has it after
 * the IPv4 addresses; an AF_INET dump does not have it. */
#include "../netlink/nl.h"
#include <arpa/inet.h>

#define IFA_CACHEINFO 6
#define IFA_PROTO 11

static void show_addr(struct nlmsghdr *h, void *arg)
{
    int *count = arg;
    struct ifaddrmsg *ifa = (struct ifaddrmsg *)(h + 1);
    (*count)++;
    if (ifa->ifa_index != 1) {
        out("  (an address of another interface, family %d)", ifa->ifa_family);
        return;
    }
    out("%s family %s prefix %d flags %#x scope %d index %u", msgtype(h->nlmsg_type), ifa->ifa_family == AF_INET6 ? "AF_INET6" : ifa->ifa_family == AF_INET ? "AF_INET" : "other", ifa->ifa_prefixlen, ifa->ifa_flags, ifa->ifa_scope, ifa->ifa_index);
    if (ifa->ifa_family != AF_INET6)
        return;
    char *at = NL_ATTRS(h, sizeof *ifa);
    int al = NL_ATTRLEN(h, sizeof *ifa);
    char order[128] = "";
    for (struct nlattr *a = (struct nlattr *)at; al >= (int)sizeof *a && a->nla_len >= sizeof *a && a->nla_len <= al;) {
        char n[16];
        snprintf(n, sizeof n, "%d/%d ", a->nla_type, a->nla_len);
        strcat(order, n);
        int step = NLMSG_ALIGN(a->nla_len);
        al -= step;
        a = (struct nlattr *)((char *)a + step);
    }
    out("  attributes (type/len): %s", order);
    at = NL_ATTRS(h, sizeof *ifa);
    al = NL_ATTRLEN(h, sizeof *ifa);
    struct nlattr *a;
    char text[64];
    if ((a = nl_find(at, al, IFA_ADDRESS)))
        out("  address %s", inet_ntop(AF_INET6, NL_DATA(a), text, sizeof text));
    if ((a = nl_find(at, al, IFA_CACHEINFO))) {
        uint32_t *ci = NL_DATA(a);
        out("  preferred %#x valid %#x", ci[0], ci[1]);
    }
    if ((a = nl_find(at, al, IFA_FLAGS)))
        out("  IFA_FLAGS %#x", *(uint32_t *)NL_DATA(a));
    if ((a = nl_find(at, al, IFA_PROTO)))
        out("  IFA_PROTO %d", *(uint8_t *)NL_DATA(a));
}

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    struct ifaddrmsg ifa = {.ifa_family = AF_INET6};
    int count = 0;
    nl_send(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 1, &ifa, sizeof ifa);
    out("dump AF_INET6: %s", nlerr(nl_answers(fd, show_addr, &count)));
    ifa.ifa_family = AF_UNSPEC;
    nl_send(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 2, &ifa, sizeof ifa);
    out("dump AF_UNSPEC: %s", nlerr(nl_answers(fd, show_addr, &count)));
    return 0;
}
