/* RTM_GETADDR dumps: lo's IPv4 address 127.0.0.1/8, host scope,
 * permanent, labelled lo, with IFA_ADDRESS and IFA_LOCAL and no
 * broadcast; an AF_INET dump has no other family's addresses. */
#include "nl.h"
#include <arpa/inet.h>

static void show_addr(struct nlmsghdr *h, void *arg)
{
    int *count = arg;
    struct ifaddrmsg *ifa = (struct ifaddrmsg *)(h + 1);
    if (ifa->ifa_family != AF_INET) {
        out("family %d", ifa->ifa_family);
        return;
    }
    (*count)++;
    if (ifa->ifa_index != 1)
        return;
    char *at = NL_ATTRS(h, sizeof *ifa);
    int al = NL_ATTRLEN(h, sizeof *ifa);
    struct nlattr *a;
    out("%s multi %s: prefix %d flags %#x scope %d index %u", msgtype(h->nlmsg_type), yesno(h->nlmsg_flags & NLM_F_MULTI), ifa->ifa_prefixlen, ifa->ifa_flags, ifa->ifa_scope, ifa->ifa_index);
    if ((a = nl_find(at, al, IFA_ADDRESS)))
        out("  address %s", inet_ntoa(*(struct in_addr *)NL_DATA(a)));
    if ((a = nl_find(at, al, IFA_LOCAL)))
        out("  local %s", inet_ntoa(*(struct in_addr *)NL_DATA(a)));
    if ((a = nl_find(at, al, IFA_LABEL)))
        out("  label %s", (char *)NL_DATA(a));
    if ((a = nl_find(at, al, IFA_FLAGS)))
        out("  IFA_FLAGS %#x", *(uint32_t *)NL_DATA(a));
    out("  broadcast %s", yesno(nl_find(at, al, IFA_BROADCAST) != NULL));
}

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    struct ifaddrmsg ifa = {.ifa_family = AF_INET};
    int count = 0;
    nl_send(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 1, &ifa, sizeof ifa);
    out("dump AF_INET: %s", nlerr(nl_answers(fd, show_addr, &count)));
    out("addresses seen: %s", yesno(count > 0));
    /* Non-strict: the index is not a filter. */
    ifa.ifa_index = 1;
    count = 0;
    nl_send(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 2, &ifa, sizeof ifa);
    out("dump with index: %s", nlerr(nl_answers(fd, show_addr, &count)));
    ifa.ifa_index = 0;
    nl_send(fd, RTM_GETADDR, NLM_F_REQUEST, 3, &ifa, sizeof ifa);
    out("get without dump: %s", nlerr(nl_answers(fd, show_addr, &count)));
    return 0;
}
