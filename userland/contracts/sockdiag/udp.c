/* sock_diag's UDP dumps and one-socket lookups: an unconnected socket on
 * 127.0.0.1:4810, one connected to it from 127.0.0.1:4811, an IPv6 one on
 * [::1]:4812 and an unbound one (not listed: it has no port). The states
 * are CLOSE (7) unconnected and ESTABLISHED (1) connected. A lookup
 * without NLM_F_DUMP takes the request's source as the peer and its
 * destination as the local end (Linux's udp_dump_one); a wrong cookie is
 * ESTALE, no match ENOENT, and the reply is one message without
 * NLM_F_MULTI, acknowledged only with NLM_F_ACK. */
#include "sockdiag.h"

static const char *names[] = {"bound", "connected", "bound6", "unbound"};
static int fds[4];

static void describe(struct nlmsghdr *h, int k, char *line, size_t size)
{
    struct inet_diag_msg *m = (struct inet_diag_msg *)(h + 1);
    snprintf(line, size, "  %s: flags %#x family %s state %d local %s remote %s uid %u attrs %s", names[k], h->nlmsg_flags,
                 m->family == AF_INET ? "inet" : "inet6", m->state, endpoint(m->family, m->id.src, m->id.sport),
                 endpoint(m->family, m->id.dst, m->id.dport), m->uid, attr_list(h, sizeof *m));
}

static void show_dump(const char *label, int fd, int family, uint32_t states)
{
    struct replies r;
    inet_dump(fd, family, IPPROTO_UDP, states, 0, &r);
    show_replies(label, &r, fds, 4, describe);
}

/* One socket by a request's id; prints which fd came back. */
static void lookup(int d, const char *label, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint32_t *cookie, int flags)
{
    struct inet_diag_req_v2 req = inet_req(IPPROTO_UDP, src, sport, dst, dport, cookie);
    struct replies r;
    ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | flags, &req, sizeof req, &r);
    char found[160] = "";
    for (int i = 0; i < r.n; i++) {
        struct inet_diag_msg *m = (struct inet_diag_msg *)(r.msg[i] + 1);
        int k = which_fd(m->inode, fds, 4);
        snprintf(found + strlen(found), sizeof found - strlen(found), " %s(flags %#x)", k < 0 ? "other" : names[k], r.msg[i]->nlmsg_flags);
    }
    out("%s: replies%s, then %s", label, r.n ? found : " none", ending(&r));
    replies_free(&r);
}

int main(void)
{
    diag_setup();
    int b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(4810);
    check("bind", bind(b, (struct sockaddr *)&a, sizeof a));
    int c = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in ac = loopback(4811);
    check("bind client", bind(c, (struct sockaddr *)&ac, sizeof ac));
    check("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    int b6 = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(4812), .sin6_addr = in6addr_loopback};
    check("bind6", bind(b6, (struct sockaddr *)&a6, sizeof a6));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    fds[0] = b, fds[1] = c, fds[2] = b6, fds[3] = u;
    int d = diag_open();
    show_dump("all states, inet", d, AF_INET, 0xfff);
    show_dump("all states, inet6", d, AF_INET6, 0xfff);
    show_dump("CLOSE only", d, AF_INET, 1 << 7);
    show_dump("ESTABLISHED only", d, AF_INET, 1 << 1);
    uint32_t lo = htonl(INADDR_LOOPBACK);
    lookup(d, "local 127.0.0.1:4810 (as the request's destination)", 0, 0, lo, 4810, NULL, 0);
    lookup(d, "local 4810 as the request's source", lo, 4810, 0, 0, NULL, 0);
    lookup(d, "connected, from 4810 to 4811", lo, 4810, lo, 4811, NULL, 0);
    lookup(d, "with NLM_F_ACK", 0, 0, lo, 4810, NULL, NLM_F_ACK);
    lookup(d, "nothing on 4899", 0, 0, lo, 4899, NULL, 0);
    /* The cookie a dump gave, then a wrong one. */
    struct replies r;
    inet_dump(d, AF_INET, IPPROTO_UDP, 0xfff, 0, &r);
    uint32_t cookie[2] = {0, 0};
    for (int i = 0; i < r.n; i++) {
        struct inet_diag_msg *m = (struct inet_diag_msg *)(r.msg[i] + 1);
        if (which_fd(m->inode, fds, 4) == 0)
            memcpy(cookie, m->id.cookie, sizeof cookie);
    }
    replies_free(&r);
    lookup(d, "the dump's cookie", 0, 0, lo, 4810, cookie, 0);
    cookie[0] ^= 0x5a5a;
    lookup(d, "another cookie", 0, 0, lo, 4810, cookie, 0);
    return 0;
}
