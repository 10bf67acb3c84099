/* Shared by the network namespace tests: bringing lo up with netlink
 * (RTM_NEWLINK with IFF_UP, as `ip link set lo up`), listing the links
 * and addresses of the caller's namespace, and TCP/UDP probes on the
 * loopback address. Namespace inode numbers are never printed. */
#ifndef CONTRACTS_NETNS_H
#define CONTRACTS_NETNS_H
#include "../netlink/nl.h"
#include <netinet/in.h>
#include <sched.h>

#define IFF_UP_ 0x1

/* RTM_NEWLINK on ifindex `index` setting IFF_UP to `up`; returns the
 * acknowledgement's error (0, -EPERM...). */
static int link_set_up(int index, int up) __attribute__((unused));
static int link_set_up(int index, int up)
{
    int fd = nl_open(NETLINK_ROUTE);
    struct ifinfomsg ifi = {.ifi_index = index, .ifi_flags = up ? IFF_UP_ : 0, .ifi_change = IFF_UP_};
    nl_send(fd, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 1, &ifi, sizeof ifi);
    int r = nl_answers(fd, NULL, NULL);
    close(fd);
    return r;
}

static void each_link(struct nlmsghdr *h, void *arg) __attribute__((unused));
static void each_link(struct nlmsghdr *h, void *arg)
{
    (void)arg;
    if (h->nlmsg_type != RTM_NEWLINK)
        return;
    struct ifinfomsg *ifi = (struct ifinfomsg *)(h + 1);
    struct nlattr *name = nl_find(NL_ATTRS(h, sizeof *ifi), NL_ATTRLEN(h, sizeof *ifi), IFLA_IFNAME);
    struct nlattr *oper = nl_find(NL_ATTRS(h, sizeof *ifi), NL_ATTRLEN(h, sizeof *ifi), IFLA_OPERSTATE);
    struct nlattr *qdisc = nl_find(NL_ATTRS(h, sizeof *ifi), NL_ATTRLEN(h, sizeof *ifi), IFLA_QDISC);
    out("  link %d %s up %s running %s lower_up %s operstate %d qdisc %s", ifi->ifi_index, name ? (char *)NL_DATA(name) : "?",
        yesno(ifi->ifi_flags & IFF_UP), yesno(ifi->ifi_flags & IFF_RUNNING), yesno(ifi->ifi_flags & IFF_LOWER_UP),
        oper ? *(unsigned char *)NL_DATA(oper) : -1, qdisc ? (char *)NL_DATA(qdisc) : "none");
}

static void each_addr(struct nlmsghdr *h, void *arg) __attribute__((unused));
static void each_addr(struct nlmsghdr *h, void *arg)
{
    (void)arg;
    if (h->nlmsg_type != RTM_NEWADDR)
        return;
    struct ifaddrmsg *ifa = (struct ifaddrmsg *)(h + 1);
    struct nlattr *a = nl_find(NL_ATTRS(h, sizeof *ifa), NL_ATTRLEN(h, sizeof *ifa), IFA_ADDRESS);
    char text[64] = "?";
    if (a)
        inet_ntop(ifa->ifa_family, NL_DATA(a), text, sizeof text);
    out("  addr if %u %s/%u", ifa->ifa_index, text, ifa->ifa_prefixlen);
}

/* Prints the links, then the IPv4 and IPv6 addresses, of the caller's
 * network namespace. */
static void show_net(const char *label) __attribute__((unused));
static void show_net(const char *label)
{
    out("%s:", label);
    int fd = nl_open(NETLINK_ROUTE);
    struct ifinfomsg ifi = {0};
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 1, &ifi, sizeof ifi);
    int r = nl_answers(fd, each_link, NULL);
    if (r)
        out("  links: %s", nlerr(r));
    int fams[2] = {AF_INET, AF_INET6};
    for (int i = 0; i < 2; i++) {
        struct ifaddrmsg ifa = {.ifa_family = fams[i]};
        nl_send(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 2 + i, &ifa, sizeof ifa);
        r = nl_answers(fd, each_addr, NULL);
        if (r)
            out("  addrs: %s", nlerr(r));
    }
    close(fd);
}

static struct sockaddr_in loopback(int port) __attribute__((unused));
static struct sockaddr_in loopback(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return a;
}

/* connect(2) of a new socket of `type` to 127.0.0.1:port: "0" or the errno. */
static const char *try_connect(int type, int port) __attribute__((unused));
static const char *try_connect(int type, int port)
{
    int s = socket(AF_INET, type, 0);
    struct sockaddr_in a = loopback(port);
    int r = connect(s, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    close(s);
    return r == 0 ? "0" : errname(e);
}

/* The text /proc/self/ns/net links to. */
static void net_link(char *buf, size_t n) __attribute__((unused));
static void net_link(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/ns/net", buf, n - 1);
    buf[len < 0 ? 0 : len] = 0;
}
#endif
