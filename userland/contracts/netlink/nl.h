/* Shared by the netlink tests: the netlink ABI musl has no header for
 * (include/uapi/linux/netlink.h, rtnetlink.h, if_link.h, if_addr.h),
 * requests, reading answers until NLMSG_DONE or an error, attribute
 * lookup, and bringing lo up (Linux boots with it down). Port ids and
 * statistics are never printed. */
#ifndef CONTRACTS_NL_H
#define CONTRACTS_NL_H
#include "common.h"
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <arpa/inet.h>

#ifndef AF_NETLINK
#define AF_NETLINK 16
#endif
#define SOL_NETLINK 270
#define NETLINK_ROUTE 0
#define NETLINK_UNUSED 1
#define NETLINK_USERSOCK 2
#define NETLINK_KOBJECT_UEVENT 15
#define NETLINK_ADD_MEMBERSHIP 1
#define NETLINK_DROP_MEMBERSHIP 2
#define NETLINK_PKTINFO 3
#define NETLINK_BROADCAST_ERROR 4
#define NETLINK_NO_ENOBUFS 5
#define NETLINK_RX_RING 6
#define NETLINK_LISTEN_ALL_NSID 8
#define NETLINK_LIST_MEMBERSHIPS 9
#define NETLINK_CAP_ACK 10
#define NETLINK_EXT_ACK 11
#define NETLINK_GET_STRICT_CHK 12

struct sockaddr_nl { unsigned short nl_family; unsigned short nl_pad; uint32_t nl_pid; uint32_t nl_groups; };
struct nlmsghdr { uint32_t nlmsg_len; uint16_t nlmsg_type; uint16_t nlmsg_flags; uint32_t nlmsg_seq; uint32_t nlmsg_pid; };
struct nlmsgerr { int error; struct nlmsghdr msg; };
struct nlattr { uint16_t nla_len; uint16_t nla_type; };
struct ifinfomsg { unsigned char ifi_family, pad; unsigned short ifi_type; int ifi_index; unsigned ifi_flags, ifi_change; };
struct ifaddrmsg { uint8_t ifa_family, ifa_prefixlen, ifa_flags, ifa_scope; uint32_t ifa_index; };
struct rtmsg { unsigned char rtm_family, rtm_dst_len, rtm_src_len, rtm_tos, rtm_table, rtm_protocol, rtm_scope, rtm_type; unsigned rtm_flags; };
struct nl_pktinfo { uint32_t group; };

#define NLM_F_REQUEST 1
#define NLM_F_MULTI 2
#define NLM_F_ACK 4
#define NLM_F_ECHO 8
#define NLM_F_ROOT 0x100
#define NLM_F_MATCH 0x200
#define NLM_F_DUMP (NLM_F_ROOT | NLM_F_MATCH)
#define NLM_F_REPLACE 0x100
#define NLM_F_EXCL 0x200
#define NLM_F_CREATE 0x400
#define NLM_F_CAPPED 0x100
#define NLM_F_ACK_TLVS 0x200
#define NLMSG_NOOP 1
#define NLMSG_ERROR 2
#define NLMSG_DONE 3
#define NLMSG_ALIGN(n) (((n) + 3) & ~3)

#define RTM_NEWLINK 16
#define RTM_DELLINK 17
#define RTM_GETLINK 18
#define RTM_SETLINK 19
#define RTM_NEWADDR 20
#define RTM_DELADDR 21
#define RTM_GETADDR 22
#define RTM_NEWROUTE 24
#define RTM_DELROUTE 25
#define RTM_GETROUTE 26
#define RTM_GETNEIGH 30
#define RTMGRP_LINK 1
#define RTMGRP_IPV4_IFADDR 0x10

#define IFLA_ADDRESS 1
#define IFLA_BROADCAST 2
#define IFLA_IFNAME 3
#define IFLA_MTU 4
#define IFLA_QDISC 6
#define IFLA_STATS 7
#define IFLA_TXQLEN 13
#define IFLA_OPERSTATE 16
#define IFLA_STATS64 23
#define IFLA_EXT_MASK 29
#define IFA_ADDRESS 1
#define IFA_LOCAL 2
#define IFA_LABEL 3
#define IFA_BROADCAST 4
#define IFA_FLAGS 8
#define RTA_DST 1
#define RTA_GATEWAY 5
#define RTA_OIF 4
#define RTA_PREFSRC 7
#define RTA_TABLE 15

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

static const char *msgtype(int t) __attribute__((unused));
static const char *msgtype(int t)
{
    static char buf[32];
    switch (t) {
#define T(x) case x: return #x;
    T(NLMSG_NOOP) T(NLMSG_ERROR) T(NLMSG_DONE) T(RTM_NEWLINK) T(RTM_DELLINK) T(RTM_NEWADDR) T(RTM_DELADDR)
    T(RTM_NEWROUTE) T(RTM_DELROUTE)
#undef T
    }
    snprintf(buf, sizeof buf, "type%d", t);
    return buf;
}

static int nl_open(int proto) __attribute__((unused));
static int nl_open(int proto)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
    if (fd < 0)
        out("socket(AF_NETLINK, %d): %s", proto, errname(errno));
    return fd;
}

/* Sends one message: header, `body` of `len` bytes; returns send's result. */
static long nl_send(int fd, int type, int flags, unsigned seq, const void *body, size_t len) __attribute__((unused));
static long nl_send(int fd, int type, int flags, unsigned seq, const void *body, size_t len)
{
    char buf[4096];
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    memset(buf, 0, sizeof buf);
    h->nlmsg_len = sizeof *h + len;
    h->nlmsg_type = type;
    h->nlmsg_flags = flags;
    h->nlmsg_seq = seq;
    if (len)
        memcpy(buf + sizeof *h, body, len);
    struct sockaddr_nl k = {.nl_family = AF_NETLINK};
    return sendto(fd, buf, NLMSG_ALIGN(h->nlmsg_len), 0, (struct sockaddr *)&k, sizeof k);
}

/* Appends an attribute to a body at *len. */
static void nl_attr(void *body, size_t *len, int type, const void *data, size_t n) __attribute__((unused));
static void nl_attr(void *body, size_t *len, int type, const void *data, size_t n)
{
    struct nlattr *a = (struct nlattr *)((char *)body + *len);
    a->nla_len = sizeof *a + n;
    a->nla_type = type;
    memcpy(a + 1, data, n);
    *len += NLMSG_ALIGN(a->nla_len);
}

/* Finds attribute `type` in the attributes at `p` (len bytes). */
static struct nlattr *nl_find(void *p, int len, int type) __attribute__((unused));
static struct nlattr *nl_find(void *p, int len, int type)
{
    char *c = p;
    while (len >= (int)sizeof(struct nlattr)) {
        struct nlattr *a = (struct nlattr *)c;
        if (a->nla_len < sizeof *a || a->nla_len > len)
            return NULL;
        if ((a->nla_type & 0x3fff) == type)
            return a;
        c += NLMSG_ALIGN(a->nla_len);
        len -= NLMSG_ALIGN(a->nla_len);
    }
    return NULL;
}

#define NL_DATA(a) ((void *)((struct nlattr *)(a) + 1))
#define NL_ATTRS(h, hdrlen) ((char *)(h) + sizeof(struct nlmsghdr) + NLMSG_ALIGN(hdrlen))
#define NL_ATTRLEN(h, hdrlen) ((int)(h)->nlmsg_len - (int)sizeof(struct nlmsghdr) - NLMSG_ALIGN(hdrlen))

/* Reads answers until NLMSG_DONE or NLMSG_ERROR (or `max` datagrams),
 * calling `each` on every other message; returns the error of an
 * NLMSG_ERROR (0 for an acknowledgement), the NLMSG_DONE's value, or
 * -1000 when the socket had nothing more. */
typedef void (*nl_each)(struct nlmsghdr *h, void *arg);
static int nl_answers(int fd, nl_each each, void *arg) __attribute__((unused));
static int nl_answers(int fd, nl_each each, void *arg)
{
    static char buf[65536];
    for (int round = 0; round < 64; round++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 5000) <= 0)
            return -1000;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) {
            out("recv: %s", errname(errno));
            return -1000;
        }
        for (char *c = buf; c + sizeof(struct nlmsghdr) <= buf + n;) {
            struct nlmsghdr *h = (struct nlmsghdr *)c;
            if (h->nlmsg_len < sizeof *h || c + h->nlmsg_len > buf + n)
                break;
            if (h->nlmsg_type == NLMSG_DONE)
                return *(int *)(h + 1);
            if (h->nlmsg_type == NLMSG_ERROR)
                return ((struct nlmsgerr *)(h + 1))->error;
            if (each)
                each(h, arg);
            c += NLMSG_ALIGN(h->nlmsg_len);
        }
    }
    return -1000;
}

static const char *nlerr(int e) __attribute__((unused));
static const char *nlerr(int e)
{
    if (e == -1000)
        return "no answer";
    if (e == 0)
        return "0";
    return errname(-e);
}

static void lo_up(void) __attribute__((unused));
static void lo_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
        out("lo_up: SIOCGIFFLAGS: %s", errname(errno));
    if (!(r.ifr_flags & IFF_UP)) {
        r.ifr_flags |= IFF_UP;
        if (ioctl(s, SIOCSIFFLAGS, &r) < 0)
            out("lo_up: SIOCSIFFLAGS: %s", errname(errno));
    }
    close(s);
}
#endif
