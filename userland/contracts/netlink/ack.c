/* The kernel's processing of requests: NLM_F_ACK gives an NLMSG_ERROR
 * with error 0 (capped: the request's header only), an error gives the
 * whole request back; a message without NLM_F_REQUEST or of a control
 * type is only acknowledged; a type past RTM_MAX is EOPNOTSUPP; a short
 * RTM_GETLINK is EINVAL; two requests in one send are answered in order;
 * NETLINK_CAP_ACK caps error messages too; the sender is the kernel. */
#include "nl.h"

static int fd;

static void one(const char *label, int type, int flags, const void *body, size_t len)
{
    static unsigned seq = 100;
    seq++;
    long r = nl_send(fd, type, flags, seq, body, len);
    if (r < 0) {
        out("%s: send %s", label, errname(errno));
        return;
    }
    char buf[8192];
    struct sockaddr_nl from;
    socklen_t fl = sizeof from;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 2000) != 1) {
        out("%s: no answer", label);
        return;
    }
    ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    struct sockaddr_nl me;
    socklen_t ml = sizeof me;
    getsockname(fd, (struct sockaddr *)&me, &ml);
    out("%s: %s datagram is the message %s flags %#x seq ok %s pid is ours %s from pid %u groups %u", label, msgtype(h->nlmsg_type), yesno(h->nlmsg_len == n), h->nlmsg_flags,
        yesno(h->nlmsg_seq == seq), yesno(h->nlmsg_pid == me.nl_pid), from.nl_pid, from.nl_groups);
    if (h->nlmsg_type == NLMSG_ERROR) {
        struct nlmsgerr *e = (struct nlmsgerr *)(h + 1);
        out("  len %u error %s, echoed type %d len %u", h->nlmsg_len, nlerr(e->error), e->msg.nlmsg_type, e->msg.nlmsg_len);
    }
}

int main(void)
{
    fd = nl_open(NETLINK_ROUTE);
    char body[64];
    memset(body, 0, sizeof body);
    one("NOOP with ACK", NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, NULL, 0);
    one("GETLINK without REQUEST, ACK", RTM_GETLINK, NLM_F_ACK, body, 16);
    one("type 200", 200, NLM_F_REQUEST, body, 16);
    one("GETLINK short", RTM_GETLINK, NLM_F_REQUEST, body, 1);
    struct ifinfomsg ifi = {.ifi_index = 1};
    one("GETLINK index 1 with ACK", RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, &ifi, sizeof ifi);
    /* The reply came first; then the acknowledgement. */
    char buf[8192];
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    out("then: %s", n > 0 ? msgtype(((struct nlmsghdr *)buf)->nlmsg_type) : errname(errno));
    one("empty GETLINK with ACK", RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, NULL, 0);
    int on = 1;
    check("NETLINK_CAP_ACK", setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &on, sizeof on));
    one("capped type 200", 200, NLM_F_REQUEST, body, 16);
    /* Two requests in one datagram. */
    char two[64];
    memset(two, 0, sizeof two);
    struct nlmsghdr *h1 = (struct nlmsghdr *)two, *h2 = (struct nlmsghdr *)(two + 20);
    h1->nlmsg_len = 20; h1->nlmsg_type = 200; h1->nlmsg_flags = NLM_F_REQUEST; h1->nlmsg_seq = 1;
    h2->nlmsg_len = 16; h2->nlmsg_type = NLMSG_NOOP; h2->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK; h2->nlmsg_seq = 2;
    struct sockaddr_nl k = {.nl_family = AF_NETLINK};
    out("send two: %zd", sendto(fd, two, 36, 0, (struct sockaddr *)&k, sizeof k));
    for (int i = 0; i < 2; i++) {
        n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        struct nlmsghdr *h = (struct nlmsghdr *)buf;
        if (n < 0) {
            out("answer %d: %s", i, errname(errno));
            continue;
        }
        out("answer %d: %s seq %u error %s", i, msgtype(h->nlmsg_type), h->nlmsg_seq, nlerr(((struct nlmsgerr *)(h + 1))->error));
    }
    /* A malformed length ends the batch without an answer. */
    h1->nlmsg_len = 200;
    h1->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    out("send bad length: %zd", sendto(fd, two, 36, 0, (struct sockaddr *)&k, sizeof k));
    n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    out("answer: %s", n < 0 ? errname(errno) : "some");
    return 0;
}
