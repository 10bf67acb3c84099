/* sock_diag's TCP dumps (inet_diag, SOCK_DIAG_BY_FAMILY with NLM_F_DUMP):
 * a listener on 127.0.0.1, a connection to it (both ends, accepted), an
 * IPv6 listener on ::1 and a listener owned by uid 1234 (made by a child
 * after setuid). For each dump: family, state, local and remote
 * endpoints, uid, the fd whose st_ino is the inode reported, the reply
 * type and flags, sorted (Linux's order follows its hash tables); then
 * the dumps by state, by family, by source and destination port, and
 * the attributes each asks for (SHUTDOWN always, MEMINFO and SKMEMINFO
 * on request, with SO_RCVBUF/SO_SNDBUF); shutdown(SHUT_RD)'s bit. */
#include "sockdiag.h"
#include <netinet/tcp.h>

#define TCPF_ALL 0xfff
/* The child's listener has no fd here: it is found by its port. */
static const char *names[] = {"listener", "client", "server", "listener6", "unused"};
static int fds[5];

static void describe(struct nlmsghdr *h, int k, char *line, size_t size)
{
    struct inet_diag_msg *m = (struct inet_diag_msg *)(h + 1);
    snprintf(line, size, "  %s: type %d flags %#x family %s %s local %s remote %s uid %u cookie-set %s attrs %s", names[k], h->nlmsg_type,
                 h->nlmsg_flags, m->family == AF_INET ? "inet" : m->family == AF_INET6 ? "inet6" : "?", tcpstate(m->state),
                 endpoint(m->family, m->id.src, m->id.sport), endpoint(m->family, m->id.dst, m->id.dport), m->uid,
                 yesno(m->id.cookie[0] || m->id.cookie[1]), attr_list(h, sizeof *m));
}

static void show_dump(const char *label, int fd, int family, uint32_t states, uint8_t ext)
{
    struct replies r;
    inet_dump(fd, family, IPPROTO_TCP, states, ext, &r);
    show_replies(label, &r, fds, 5, describe);
}

/* Which of the listener, client and server a dump of `req` lists. */
static void count_listed(int d, const char *label, const struct inet_diag_req_v2 *req)
{
    struct replies r;
    int listed[4] = {0};
    ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, req, sizeof *req, &r);
    for (int i = 0; i < r.n; i++) {
        int k = which_fd(reply_ino(r.msg[i]), fds, 4);
        if (k >= 0)
            listed[k]++;
    }
    out("%s: %s, listener %d client %d server %d", label, ending(&r), listed[0], listed[1], listed[2]);
    replies_free(&r);
}

int main(void)
{
    diag_setup();
    int c, s;
    int l = tcp_connection(4800, 7, &c, &s);
    int l6 = socket(AF_INET6, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(l6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(4801), .sin6_addr = in6addr_loopback};
    check("bind6", bind(l6, (struct sockaddr *)&a6, sizeof a6));
    check("listen6", listen(l6, 3));
    /* A listener of another owner, made in this namespace by a child. */
    int p[2];
    if (pipe(p) < 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        if (setresuid(1234, 1234, 1234) < 0)
            _exit(1);
        int o = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in ao = loopback(4802);
        if (bind(o, (struct sockaddr *)&ao, sizeof ao) < 0 || listen(o, 1) < 0)
            _exit(2);
        if (write(p[1], "x", 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    char x;
    if (read(p[0], &x, 1) != 1)
        out("child failed");
    fds[0] = l, fds[1] = c, fds[2] = s, fds[3] = l6, fds[4] = -1;
    int d = diag_open();
    show_dump("all states, inet", d, AF_INET, TCPF_ALL, 0);
    show_dump("all states, inet6", d, AF_INET6, TCPF_ALL, 0);
    show_dump("listening, inet", d, AF_INET, 1 << 10, 0);
    show_dump("established, inet", d, AF_INET, 1 << 1, 0);
    show_dump("no state", d, AF_INET, 0, 0);
    /* The child's listener: the one LISTEN entry on port 4802. */
    struct replies r;
    inet_dump(d, AF_INET, IPPROTO_TCP, 1 << 10, 0, &r);
    for (int i = 0; i < r.n; i++) {
        struct inet_diag_msg *m = (struct inet_diag_msg *)(r.msg[i] + 1);
        if (ntohs(m->id.sport) == 4802)
            out("port 4802: uid %u inode set %s", m->uid, yesno(m->inode != 0));
    }
    replies_free(&r);
    kill(child, SIGKILL);
    reap("child", child);
    /* By port: the request's id.sport and id.dport. */
    struct inet_diag_req_v2 req = {.family = AF_INET, .protocol = IPPROTO_TCP, .states = TCPF_ALL};
    req.id.sport = htons(4800);
    count_listed(d, "sport 4800", &req);
    req.id.sport = 0;
    req.id.dport = htons(4800);
    count_listed(d, "dport 4800", &req);
    /* Memory attributes: SKMEMINFO's buffers are SO_RCVBUF/SO_SNDBUF. */
    int rcv = 65536;
    setsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    int got_rcv = 0, got_snd = 0;
    socklen_t sl = sizeof got_rcv;
    getsockopt(c, SOL_SOCKET, SO_RCVBUF, &got_rcv, &sl);
    sl = sizeof got_snd;
    getsockopt(c, SOL_SOCKET, SO_SNDBUF, &got_snd, &sl);
    check("shutdown(SHUT_RD)", shutdown(c, SHUT_RD));
    inet_dump(d, AF_INET, IPPROTO_TCP, TCPF_ALL, (1 << (INET_DIAG_MEMINFO - 1)) | (1 << (INET_DIAG_SKMEMINFO - 1)), &r);
    for (int i = 0; i < r.n; i++) {
        struct nlmsghdr *h = r.msg[i];
        struct inet_diag_msg *m = (struct inet_diag_msg *)(h + 1);
        if (which_fd(m->inode, fds, 4) != 1)
            continue;
        struct nlattr *mem = nl_find(NL_ATTRS(h, sizeof *m), NL_ATTRLEN(h, sizeof *m), INET_DIAG_MEMINFO);
        struct nlattr *sk = nl_find(NL_ATTRS(h, sizeof *m), NL_ATTRLEN(h, sizeof *m), INET_DIAG_SKMEMINFO);
        struct nlattr *sh = nl_find(NL_ATTRS(h, sizeof *m), NL_ATTRLEN(h, sizeof *m), INET_DIAG_SHUTDOWN);
        out("client: attrs %s", attr_list(h, sizeof *m));
        out("client: meminfo length %d", mem ? mem->nla_len : -1);
        if (sk) {
            uint32_t *v = NL_DATA(sk);
            out("client: skmeminfo length %d rcvbuf is SO_RCVBUF %s sndbuf is SO_SNDBUF %s", sk->nla_len, yesno((int)v[SK_MEMINFO_RCVBUF] == got_rcv),
                yesno((int)v[SK_MEMINFO_SNDBUF] == got_snd));
        }
        out("client: shutdown %d", sh ? *(uint8_t *)NL_DATA(sh) : -1);
    }
    replies_free(&r);
    return 0;
}
