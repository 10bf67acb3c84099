/* sock_diag's refusals: the socket types it opens with, a request too
 * short for its family's header (EINVAL), a family past AF_MAX (EINVAL)
 * or without a handler (AF_NETLINK here: ENOENT, its module not loaded),
 * an unknown message type (EINVAL), SOCK_DESTROY (unix_diag cannot:
 * EOPNOTSUPP; inet_diag finds no such socket: ENOENT; destroy.c does
 * more), a protocol inet_diag has no handler for (ENOENT: in the
 * NLMSG_DONE of a dump, in NLMSG_ERROR for one socket), UDP-Lite (an
 * empty dump), a request without NLM_F_REQUEST (ignored, acknowledged
 * with NLM_F_ACK), NLM_F_ACK on a dump (no acknowledgement), either of
 * NLM_F_ROOT and NLM_F_MATCH asking for a dump, and the old
 * TCPDIAG_GETSOCK request (struct inet_diag_req: both families). */
#include "sockdiag.h"

static void try(int d, const char *label, int type, int flags, const void *body, size_t len)
{
    struct replies r;
    ask(d, type, flags, body, len, &r);
    out("%s: %d messages, then %s", label, r.n, ending(&r));
    replies_free(&r);
}

int main(void)
{
    diag_setup();
    int s = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG);
    out("SOCK_DGRAM: %s", s < 0 ? errname(errno) : "ok");
    close(s);
    s = socket(AF_NETLINK, SOCK_STREAM, NETLINK_SOCK_DIAG);
    out("SOCK_STREAM: %s", s < 0 ? errname(errno) : "ok");
    int d = diag_open();
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4820);
    check("bind", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 1));

    uint8_t fam = AF_INET;
    try(d, "one byte", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &fam, 1);
    uint8_t two[2] = {AF_INET, IPPROTO_TCP};
    try(d, "sock_diag_req only, inet", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, two, 2);
    two[0] = AF_UNIX;
    try(d, "sock_diag_req only, unix", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, two, 2);
    struct inet_diag_req_v2 req = {.family = 46, .protocol = IPPROTO_TCP, .states = 0xfff};
    try(d, "family 46 (AF_MAX)", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    req.family = 255;
    try(d, "family 255", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    req.family = AF_NETLINK;
    try(d, "AF_NETLINK", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    req.family = AF_INET;
    try(d, "type 22", 22, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    try(d, "type 16", 16, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    try(d, "SOCK_DESTROY inet", SOCK_DESTROY, NLM_F_REQUEST, &req, sizeof req);
    struct unix_diag_req ureq = {.family = AF_UNIX, .states = 0xfff};
    try(d, "SOCK_DESTROY unix", SOCK_DESTROY, NLM_F_REQUEST, &ureq, sizeof ureq);
    req.protocol = 0;
    try(d, "protocol 0, dump", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    try(d, "protocol 0, one socket", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &req, sizeof req);
    req.protocol = IPPROTO_SCTP;
    try(d, "SCTP, dump", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    req.protocol = IPPROTO_UDPLITE;
    try(d, "UDP-Lite, dump", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
    /* INET_DIAG_REQ_PROTOCOL overrides the header's protocol byte. */
    char body[128];
    size_t len = sizeof req;
    req.protocol = 0;
    memcpy(body, &req, sizeof req);
    uint32_t tcp = IPPROTO_TCP;
    nl_attr(body, &len, INET_DIAG_REQ_PROTOCOL, &tcp, sizeof tcp);
    try(d, "protocol 0 with INET_DIAG_REQ_PROTOCOL TCP", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, body, len);
    req.protocol = IPPROTO_TCP;
    try(d, "no NLM_F_REQUEST", SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, &req, sizeof req);
    try(d, "no NLM_F_REQUEST, NLM_F_ACK", SOCK_DIAG_BY_FAMILY, NLM_F_DUMP | NLM_F_ACK, &req, sizeof req);
    try(d, "dump with NLM_F_ACK", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP | NLM_F_ACK, &req, sizeof req);
    try(d, "NLM_F_ROOT alone (a dump)", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_ROOT, &req, sizeof req);
    try(d, "NLM_F_MATCH alone (a dump)", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_MATCH, &req, sizeof req);
    try(d, "unix, NLM_F_ROOT alone", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_ROOT, &ureq, sizeof ureq);
    try(d, "one socket, nothing matches", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &req, sizeof req);
    try(d, "one socket, nothing matches, NLM_F_ACK", SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_ACK, &req, sizeof req);
    /* The old request: 4 bytes of family and lengths, the id, states,
     * dbs; answered with its own type, IPv4 and IPv6 sockets alike. */
    struct {
        uint8_t family, src_len, dst_len, ext;
        struct inet_diag_sockid id;
        uint32_t states, dbs;
    } old = {.family = AF_INET, .states = 0xfff};
    struct replies r;
    ask(d, TCPDIAG_GETSOCK, NLM_F_REQUEST | NLM_F_DUMP, &old, sizeof old, &r);
    int mine = 0;
    for (int i = 0; i < r.n; i++) {
        struct inet_diag_msg *m = (struct inet_diag_msg *)(r.msg[i] + 1);
        if (m->inode == ino_of(l))
            out("TCPDIAG_GETSOCK: the listener, type %d flags %#x state %s", r.msg[i]->nlmsg_type, r.msg[i]->nlmsg_flags, tcpstate(m->state)), mine++;
    }
    out("TCPDIAG_GETSOCK: %d of mine, then %s", mine, ending(&r));
    replies_free(&r);
    try(d, "TCPDIAG_GETSOCK, short", TCPDIAG_GETSOCK, NLM_F_REQUEST | NLM_F_DUMP, &old, sizeof old - 8);
    try(d, "DCCPDIAG_GETSOCK", 19, NLM_F_REQUEST | NLM_F_DUMP, &old, sizeof old);
    return 0;
}
