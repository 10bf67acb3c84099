/* NETLINK_AUDIT on a Linux 6.1 with audit off and no auditd (kernel/
 * audit.c): the socket opens (SOCK_RAW and SOCK_DGRAM); binding to the
 * multicast group AUDIT_NLGRP_READLOG (as systemd-journald-audit.socket
 * does) needs CAP_AUDIT_READ (EPERM without, and the socket stays
 * unbound); AUDIT_GET answers the status (audit off, failure printk,
 * the default limits); AUDIT_SET with no mask bits is acknowledged, and
 * without CAP_AUDIT_CONTROL is EPERM; AUDIT_LIST is EOPNOTSUPP and an
 * unknown type EINVAL, each as an NLMSG_ERROR; nothing is multicast when
 * audit is off. The test never turns audit on (that would change the
 * kernel's state for the tests after it). */
#include "nl.h"

#define NETLINK_AUDIT 9
#define AUDIT_GET 1000
#define AUDIT_SET 1001
#define AUDIT_LIST 1002
#define AUDIT_NLGRP_READLOG 1

struct audit_status {
    uint32_t mask, enabled, failure, pid, rate_limit, backlog_limit, lost, backlog;
    uint32_t feature_bitmap, backlog_wait_time, backlog_wait_time_actual;
};

static void request(int fd, const char *label, uint16_t type, uint16_t flags, const void *body, size_t len)
{
    struct { struct nlmsghdr h; char body[64]; } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = sizeof req.h + len;
    req.h.nlmsg_type = type;
    req.h.nlmsg_flags = flags;
    req.h.nlmsg_seq = 7;
    memcpy(req.body, body, len);
    struct sockaddr_nl to = { .nl_family = AF_NETLINK };
    ssize_t n = sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&to, sizeof to);
    if (n < 0) {
        out("%s: sendto %s", label, errname(errno));
        return;
    }
    out("%s: sendto %s", label, n == (ssize_t)req.h.nlmsg_len ? "whole" : "short");
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, 2000) <= 0) {
        out("%s: no answer", label);
        return;
    }
    char buf[8192];
    n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
        out("%s: recv %s", label, errname(errno));
        return;
    }
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    if (h->nlmsg_type == NLMSG_ERROR) {
        struct nlmsgerr *e = (struct nlmsgerr *)(h + 1);
        out("%s: NLMSG_ERROR %s seq %u flags %#x", label, e->error ? errname(-e->error) : "0 (ack)", h->nlmsg_seq, h->nlmsg_flags);
    } else if (h->nlmsg_type == AUDIT_GET) {
        struct audit_status *s = (struct audit_status *)(h + 1);
        out("%s: AUDIT_GET reply len %u seq %u flags %#x pid-is-port %s", label, h->nlmsg_len, h->nlmsg_seq, h->nlmsg_flags, yesno(h->nlmsg_pid != 0));
        out("%s: mask %u enabled %u failure %u pid %u rate_limit %u backlog_limit %u lost %u backlog %u features %#x wait %u actual %u",
            label, s->mask, s->enabled, s->failure, s->pid, s->rate_limit, s->backlog_limit, s->lost, s->backlog,
            s->feature_bitmap, s->backlog_wait_time, s->backlog_wait_time_actual);
    } else {
        out("%s: type %u", label, h->nlmsg_type);
    }
}

static void bound(const char *label, int fd)
{
    struct sockaddr_nl a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    out("%s: port %s groups %u", label, a.nl_pid ? "set" : "0", a.nl_groups);
}

int main(void)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
    check("socket raw", fd);
    int d = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_AUDIT);
    check("socket dgram", d);
    close(d);
    out("socket stream: %s", socket(AF_NETLINK, SOCK_STREAM, NETLINK_AUDIT) < 0 ? errname(errno) : "ok");

    /* journald's bind: the read-log group. */
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
    check("bind readlog", bind(fd, (struct sockaddr *)&sa, sizeof sa));
    bound("after bind", fd);
    int one = 1;
    check("SO_PASSCRED", setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one));
    int g = 2;
    show("ADD_MEMBERSHIP 2", setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof g));
    char junk[64];
    out("nothing multicast: %s", recv(fd, junk, sizeof junk, MSG_DONTWAIT) < 0 ? errname(errno) : "a message");

    struct audit_status st;
    memset(&st, 0, sizeof st);
    request(fd, "AUDIT_GET", AUDIT_GET, NLM_F_REQUEST, &st, 0);
    request(fd, "AUDIT_SET mask 0 ack", AUDIT_SET, NLM_F_REQUEST | NLM_F_ACK, &st, sizeof st);
    request(fd, "AUDIT_LIST", AUDIT_LIST, NLM_F_REQUEST, &st, 0);
    request(fd, "type 999", 999, NLM_F_REQUEST, &st, 0);
    out("after the requests: %s", recv(fd, junk, sizeof junk, MSG_DONTWAIT) < 0 ? errname(errno) : "a message");

    pid_t pid = fork();
    if (pid == 0) {
        int u = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
        setuid(65534);
        struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = 1 };
        show("unprivileged bind readlog", bind(u, (struct sockaddr *)&a, sizeof a));
        bound("after the failed bind", u);
        int grp = 1;
        show("unprivileged ADD_MEMBERSHIP 1", setsockopt(u, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof grp));
        struct sockaddr_nl none = { .nl_family = AF_NETLINK };
        check("unprivileged bind no groups", bind(u, (struct sockaddr *)&none, sizeof none));
        struct audit_status s0;
        memset(&s0, 0, sizeof s0);
        request(u, "unprivileged AUDIT_GET", AUDIT_GET, NLM_F_REQUEST, &s0, 0);
        request(u, "unprivileged AUDIT_SET", AUDIT_SET, NLM_F_REQUEST, &s0, sizeof s0);
        _exit(0);
    }
    reap("child", pid);
    close(fd);
    return 0;
}
