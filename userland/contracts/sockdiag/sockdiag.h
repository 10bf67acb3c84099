/* Shared by the sock_diag tests: the NETLINK_SOCK_DIAG ABI musl has no
 * header for (include/uapi/linux/sock_diag.h, inet_diag.h, unix_diag.h),
 * requests, and collecting a dump's replies. Each test works in a network
 * namespace of its own (procnet.h's fresh_net) so that only its sockets
 * are there; sockets are named by their inode number matching fstat's
 * st_ino, never printed.
 *
 * Debian's Linux builds the per-family handlers as modules (sock_diag
 * itself is built in): under Linux the tests load them from
 * /lib/modules/oracle, put in the image by tools/contracts.py. Kevlar has
 * them built in and no module loading; the calls fail there unseen. */
#ifndef CONTRACTS_SOCKDIAG_H
#define CONTRACTS_SOCKDIAG_H
#include "../procnet/procnet.h"
#include <stddef.h>
#include <sys/syscall.h>

#define NETLINK_SOCK_DIAG 4
#define SOCK_DIAG_BY_FAMILY 20
#define SOCK_DESTROY 21
#define TCPDIAG_GETSOCK 18

struct inet_diag_sockid {
    uint16_t sport, dport; /* network order */
    uint32_t src[4], dst[4];
    uint32_t ifindex;
    uint32_t cookie[2];
};
struct inet_diag_req_v2 {
    uint8_t family, protocol, ext, pad;
    uint32_t states;
    struct inet_diag_sockid id;
};
struct inet_diag_msg {
    uint8_t family, state, timer, retrans;
    struct inet_diag_sockid id;
    uint32_t expires, rqueue, wqueue, uid, inode;
};
struct unix_diag_req {
    uint8_t family, protocol;
    uint16_t pad;
    uint32_t states, ino, show;
    uint32_t cookie[2];
};
struct unix_diag_msg {
    uint8_t family, type, state, pad;
    uint32_t ino;
    uint32_t cookie[2];
};

#define INET_DIAG_REQ_BYTECODE 1
#define INET_DIAG_REQ_PROTOCOL 3
#define INET_DIAG_MEMINFO 1
#define INET_DIAG_INFO 2
#define INET_DIAG_TOS 5
#define INET_DIAG_TCLASS 6
#define INET_DIAG_SKMEMINFO 7
#define INET_DIAG_SHUTDOWN 8
#define INET_DIAG_SKV6ONLY 11
#define INET_DIAG_MARK 15
#define INET_DIAG_CLASS_ID 17
#define INET_DIAG_CGROUP_ID 21
#define INET_DIAG_SOCKOPT 22
#define INET_DIAG_NOCOOKIE (~0U)

#define UDIAG_SHOW_NAME 1
#define UDIAG_SHOW_VFS 2
#define UDIAG_SHOW_PEER 4
#define UDIAG_SHOW_ICONS 8
#define UDIAG_SHOW_RQLEN 16
#define UDIAG_SHOW_MEMINFO 32
#define UDIAG_SHOW_UID 64
#define UNIX_DIAG_NAME 0
#define UNIX_DIAG_VFS 1
#define UNIX_DIAG_PEER 2
#define UNIX_DIAG_ICONS 3
#define UNIX_DIAG_RQLEN 4
#define UNIX_DIAG_MEMINFO 5
#define UNIX_DIAG_SHUTDOWN 6
#define UNIX_DIAG_UID 7

#define SK_MEMINFO_RCVBUF 1
#define SK_MEMINFO_SNDBUF 3

/* TCP states as sock_diag gives them (include/net/tcp_states.h). */
static const char *tcpstate(int s) __attribute__((unused));
static const char *tcpstate(int s)
{
    static const char *names[] = {"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
                                  "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING"};
    return s >= 0 && s < 12 ? names[s] : "?";
}

/* Loads Linux's sock_diag handler modules (see above). */
static void load_diag_modules(void) __attribute__((unused));
static void load_diag_modules(void)
{
    static const char *mods[] = {"inet_diag", "tcp_diag", "udp_diag", "unix_diag"};
    for (unsigned i = 0; i < sizeof mods / sizeof *mods; i++) {
        char path[96];
        snprintf(path, sizeof path, "/lib/modules/oracle/%s.ko", mods[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        syscall(SYS_finit_module, fd, "", 0);
        close(fd);
    }
}

/* The start of every test: the modules, a fresh namespace with lo up. */
static void diag_setup(void) __attribute__((unused));
static void diag_setup(void)
{
    load_diag_modules();
    fresh_net();
}

/* A dump's (or one request's) replies: copies of the messages before
 * NLMSG_DONE or NLMSG_ERROR, and how it ended. */
#define MAX_REPLIES 512
struct replies {
    int n;
    struct nlmsghdr *msg[MAX_REPLIES];
    int end;      /* NLMSG_DONE's value or NLMSG_ERROR's error */
    int end_type; /* NLMSG_DONE, NLMSG_ERROR, or 0: nothing came */
};

static void replies_free(struct replies *r) __attribute__((unused));
static void replies_free(struct replies *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->msg[i]);
    r->n = 0;
}

/* Reads replies into r until NLMSG_DONE or NLMSG_ERROR. */
static void collect(int fd, struct replies *r) __attribute__((unused));
static void collect(int fd, struct replies *r)
{
    static char buf[65536];
    r->n = 0;
    r->end = 0;
    r->end_type = 0;
    for (int round = 0; round < 256; round++) {
        /* Replies are queued by the time send returns (a dump's next
         * part by the time recv returns): only the first wait is long. */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, round == 0 ? 5000 : 100) <= 0)
            return;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) {
            out("recv: %s", errname(errno));
            return;
        }
        for (char *c = buf; c + sizeof(struct nlmsghdr) <= buf + n;) {
            struct nlmsghdr *h = (struct nlmsghdr *)c;
            if (h->nlmsg_len < sizeof *h || c + h->nlmsg_len > buf + n)
                break;
            if (h->nlmsg_type == NLMSG_DONE) {
                r->end_type = NLMSG_DONE;
                r->end = *(int *)(h + 1);
                return;
            }
            if (h->nlmsg_type == NLMSG_ERROR) {
                r->end_type = NLMSG_ERROR;
                r->end = ((struct nlmsgerr *)(h + 1))->error;
                return;
            }
            if (r->n < MAX_REPLIES) {
                r->msg[r->n] = malloc(h->nlmsg_len);
                memcpy(r->msg[r->n], h, h->nlmsg_len);
                r->n++;
            }
            c += NLMSG_ALIGN(h->nlmsg_len);
        }
    }
}

/* How a request ended, as a word: "done", "done ENOENT", "error EINVAL",
 * "ack", "nothing". */
static const char *ending(const struct replies *r) __attribute__((unused));
static const char *ending(const struct replies *r)
{
    static char buf[64];
    if (r->end_type == NLMSG_DONE)
        snprintf(buf, sizeof buf, "done%s%s", r->end ? " " : "", r->end ? errname(-r->end) : "");
    else if (r->end_type == NLMSG_ERROR)
        snprintf(buf, sizeof buf, r->end ? "error %s" : "ack", errname(-r->end));
    else
        snprintf(buf, sizeof buf, "nothing");
    return buf;
}

static int diag_open(void) __attribute__((unused));
static int diag_open(void)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        out("socket(NETLINK_SOCK_DIAG): %s", errname(errno));
    return fd;
}

/* Sends `body` (len bytes) as one request and collects the replies. */
static void ask(int fd, int type, int flags, const void *body, size_t len, struct replies *r) __attribute__((unused));
static void ask(int fd, int type, int flags, const void *body, size_t len, struct replies *r)
{
    static unsigned seq = 100;
    if (nl_send(fd, type, flags, ++seq, body, len) < 0)
        out("send: %s", errname(errno));
    collect(fd, r);
}

/* An inet dump of `family`/`protocol` in `states`. */
static void inet_dump(int fd, int family, int protocol, uint32_t states, uint8_t ext, struct replies *r) __attribute__((unused));
static void inet_dump(int fd, int family, int protocol, uint32_t states, uint8_t ext, struct replies *r)
{
    struct inet_diag_req_v2 req = {.family = family, .protocol = protocol, .ext = ext, .states = states};
    ask(fd, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req, r);
}

/* The index in fds[0..n) of the socket whose inode is `ino` (-1: none). */
static int which_fd(unsigned long ino, const int *fds, int n) __attribute__((unused));
static int which_fd(unsigned long ino, const int *fds, int n)
{
    for (int k = 0; k < n; k++)
        if (ino && ino == ino_of(fds[k]))
            return k;
    return -1;
}

/* An IPv4 or IPv6 address and port as text; a port of 32768 and up
 * (ephemeral) as EPH. */
static const char *endpoint(int family, const uint32_t *addr, uint16_t port_be) __attribute__((unused));
static const char *endpoint(int family, const uint32_t *addr, uint16_t port_be)
{
    static char bufs[4][80];
    static int next;
    char *b = bufs[next++ % 4];
    char a[INET6_ADDRSTRLEN];
    inet_ntop(family, addr, a, sizeof a);
    unsigned port = ntohs(port_be);
    if (port >= 32768)
        snprintf(b, 80, "%s%s%s:EPH", family == AF_INET6 ? "[" : "", a, family == AF_INET6 ? "]" : "");
    else
        snprintf(b, 80, "%s%s%s:%u", family == AF_INET6 ? "[" : "", a, family == AF_INET6 ? "]" : "", port);
    return b;
}

/* The attribute types of a message after a family header of `hdrlen`
 * bytes, in order, as "8,21,22". */
static const char *attr_list(struct nlmsghdr *h, int hdrlen) __attribute__((unused));
static const char *attr_list(struct nlmsghdr *h, int hdrlen)
{
    static char buf[256];
    buf[0] = 0;
    char *c = NL_ATTRS(h, hdrlen);
    int len = NL_ATTRLEN(h, hdrlen);
    while (len >= (int)sizeof(struct nlattr)) {
        struct nlattr *a = (struct nlattr *)c;
        if (a->nla_len < sizeof *a || a->nla_len > len)
            break;
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d", buf[0] ? "," : "", a->nla_type);
        c += NLMSG_ALIGN(a->nla_len);
        len -= NLMSG_ALIGN(a->nla_len);
    }
    return buf[0] ? buf : "none";
}

/* Sorts lines (for dumps whose order follows Linux's hash tables). */
static int cmp_lines(const void *a, const void *b) __attribute__((unused));
static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static void out_sorted(char **lines, int n) __attribute__((unused));
static void out_sorted(char **lines, int n)
{
    qsort(lines, n, sizeof *lines, cmp_lines);
    for (int i = 0; i < n; i++) {
        out("%s", lines[i]);
        free(lines[i]);
    }
}
/* The inode a reply names: unix_diag's or inet_diag's, by its family. */
static unsigned long reply_ino(struct nlmsghdr *h) __attribute__((unused));
static unsigned long reply_ino(struct nlmsghdr *h)
{
    if (*(uint8_t *)(h + 1) == AF_UNIX)
        return ((struct unix_diag_msg *)(h + 1))->ino;
    return ((struct inet_diag_msg *)(h + 1))->inode;
}

/* Writes the line shown for reply `h`, about fds[k]. */
typedef void (*describe_fn)(struct nlmsghdr *h, int k, char *line, size_t size);

/* Prints how `r` ended, a line for each reply about one of fds[0..n)
 * (sorted) and how many replies were about other sockets; frees `r`. */
static void show_replies(const char *label, struct replies *r, const int *fds, int n, describe_fn describe) __attribute__((unused));
static void show_replies(const char *label, struct replies *r, const int *fds, int n, describe_fn describe)
{
    out("%s: %s", label, ending(r));
    char *lines[64];
    int shown = 0, others = 0;
    for (int i = 0; i < r->n; i++) {
        int k = which_fd(reply_ino(r->msg[i]), fds, n);
        if (k < 0) {
            others++;
            continue;
        }
        char line[600];
        describe(r->msg[i], k, line, sizeof line);
        if (shown < 64)
            lines[shown++] = strdup(line);
    }
    out_sorted(lines, shown);
    out("  other sockets: %d", others);
    replies_free(r);
}

/* An inet_diag request for one IPv4 socket of `protocol` by its ends
 * (addresses in network order, ports as numbers) and its cookie (NULL:
 * none). */
static struct inet_diag_req_v2 inet_req(int protocol, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint32_t *cookie) __attribute__((unused));
static struct inet_diag_req_v2 inet_req(int protocol, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint32_t *cookie)
{
    struct inet_diag_req_v2 req = {.family = AF_INET, .protocol = protocol, .states = 0xfff};
    req.id.src[0] = src;
    req.id.dst[0] = dst;
    req.id.sport = htons(sport);
    req.id.dport = htons(dport);
    req.id.cookie[0] = cookie ? cookie[0] : INET_DIAG_NOCOOKIE;
    req.id.cookie[1] = cookie ? cookie[1] : INET_DIAG_NOCOOKIE;
    return req;
}

/* A TCP listener on 127.0.0.1:`port`, saying how bind ("bind" or
 * `bind_label`) and listen went. */
static int tcp_listener(const char *bind_label, uint16_t port, int backlog) __attribute__((unused));
static int tcp_listener(const char *bind_label, uint16_t port, int backlog)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(port);
    check(bind_label, bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, backlog));
    return l;
}

/* A listener on 127.0.0.1:`port` and a connection to it: the client's
 * end in *client, the accepted one in *server. */
static int tcp_connection(uint16_t port, int backlog, int *client, int *server) __attribute__((unused));
static int tcp_connection(uint16_t port, int backlog, int *client, int *server)
{
    int l = tcp_listener("bind", port, backlog);
    struct sockaddr_in a = loopback(port);
    *client = socket(AF_INET, SOCK_STREAM, 0);
    check("connect", connect(*client, (struct sockaddr *)&a, sizeof a));
    *server = accept(l, NULL, NULL);
    check("accept", *server < 0 ? -1 : 0);
    return l;
}
#endif
