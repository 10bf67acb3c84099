/* A sock_diag dump read in parts: 200 unix sockets (100 socketpairs) make
 * 8000 bytes of replies (40 each: header, unix_diag_msg, SHUTDOWN). The
 * first part is made when the request is sent, as big as a page's worth
 * (3776 bytes) since the socket has not read yet; each later one when
 * the reader has taken the one before, as big as the largest buffer it
 * read with; NLMSG_DONE comes alone at the end. A datagram larger than
 * the buffer is cut (MSG_TRUNC) and its rest lost. A second dump asked
 * for while one is being read is refused (EBUSY) in between its parts. */
#include "sockdiag.h"

#define PAIRS 100

static char buf[65536];

/* Reads one datagram with `size` bytes of buffer; prints its length, its
 * flags and what it holds. Returns 1 once NLMSG_DONE or an error came. */
static int one(int d, size_t size)
{
    struct pollfd p = {.fd = d, .events = POLLIN};
    if (poll(&p, 1, 5000) <= 0) {
        out("  nothing to read");
        return 1;
    }
    struct iovec iov = {buf, size};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    ssize_t n = recvmsg(d, &mh, 0);
    if (n < 0) {
        out("  recvmsg: %s", errname(errno));
        return 1;
    }
    int msgs = 0, done = 0;
    char tail[64] = "";
    for (char *c = buf; c + sizeof(struct nlmsghdr) <= buf + n;) {
        struct nlmsghdr *h = (struct nlmsghdr *)c;
        if (h->nlmsg_len < sizeof *h || c + h->nlmsg_len > buf + n)
            break;
        if (h->nlmsg_type == NLMSG_DONE) {
            snprintf(tail, sizeof tail, ", NLMSG_DONE %d", *(int *)(h + 1));
            done = 1;
        } else if (h->nlmsg_type == NLMSG_ERROR) {
            snprintf(tail, sizeof tail, ", NLMSG_ERROR %s", errname(-((struct nlmsgerr *)(h + 1))->error));
            done = 1;
        } else {
            msgs++;
        }
        c += NLMSG_ALIGN(h->nlmsg_len);
    }
    out("  %zd bytes%s: %d messages%s", n, mh.msg_flags & MSG_TRUNC ? " (MSG_TRUNC)" : "", msgs, tail);
    return done;
}

static void request(int d)
{
    struct unix_diag_req req = {.family = AF_UNIX, .states = 0xfff};
    if (nl_send(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, &req, sizeof req) < 0)
        out("send: %s", errname(errno));
}

int main(void)
{
    diag_setup();
    for (int i = 0; i < PAIRS; i++) {
        int sp[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0) {
            out("socketpair: %s", errname(errno));
            return 1;
        }
    }
    int d = diag_open();
    out("read with 4096 bytes:");
    request(d);
    for (int i = 0; i < 10 && !one(d, 4096); i++)
        ;
    d = diag_open();
    out("a fresh socket, read with 100 bytes, then 65536:");
    request(d);
    one(d, 100);
    for (int i = 0; i < 10 && !one(d, sizeof buf); i++)
        ;
    d = diag_open();
    out("a second dump asked for after the first part:");
    request(d);
    one(d, 4096);
    request(d);
    for (int i = 0; i < 10 && !one(d, 4096); i++)
        ;
    out("  and after it:");
    for (int i = 0; i < 10 && !one(d, 4096); i++)
        ;
    return 0;
}
