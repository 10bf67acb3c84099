/* A socket filter on TCP sockets, as Linux 6.1's tcp_filter runs it on
 * each received segment from the TCP header on: the options' calls
 * (attach, SO_GET_FILTER, detach, ENOENT, SO_LOCK_FILTER's EPERM); a
 * listener's filter returning 0 drops SYNs (the connect stays pending
 * until the filter goes and the SYN is sent again); an accepted socket
 * inherits its listener's filter; 0 on a connection drops data segments
 * (not acked, so they come again once the filter is detached); a filter
 * keeping the header and 2 bytes cuts each segment, and the data still
 * arrives whole and in order through retransmissions (5 bytes: three
 * rounds; Kevlar's sender backs off at each one, Linux's does not). */
#include "inet.h"
#include <stdint.h>

struct sock_filter { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct sock_fprog { unsigned short len; struct sock_filter *filter; };
#ifndef SO_ATTACH_FILTER
#define SO_ATTACH_FILTER 26
#define SO_DETACH_FILTER 27
#endif
#ifndef SO_GET_FILTER
#define SO_GET_FILTER SO_ATTACH_FILTER
#endif
#ifndef SO_LOCK_FILTER
#define SO_LOCK_FILTER 44
#endif

static struct sock_filter drop_all[] = { { 0x06, 0, 0, 0 } };              /* ret #0 */
/* A = (th->doff) * 4 + 2; ret A */
static struct sock_filter header_and_two[] = {
    { 0x30, 0, 0, 12 },  /* ldb [12] */
    { 0x74, 0, 0, 2 },   /* rsh #2 */
    { 0x54, 0, 0, 0x3c },/* and #0x3c */
    { 0x04, 0, 0, 2 },   /* add #2 */
    { 0x16, 0, 0, 0 },   /* ret a */
};

static int attach(int fd, struct sock_filter *code, int n)
{
    struct sock_fprog prog = { (unsigned short)n, code };
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
}

static int detach(int fd)
{
    int zero = 0;
    return setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof zero);
}

static int listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = lo_addr(0);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 8))
        out("listener: %s", errname(errno));
    *port = port_of(fd);
    return fd;
}

static int connect_nb(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = lo_addr(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS)
        out("connect: %s", errname(errno));
    return fd;
}

/* Reads until `want` bytes came or `ms` passed. */
static int read_for(int fd, char *buf, int want, int ms)
{
    int got = 0;
    long long end = now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
    while (got < want) {
        long long left = (end - now_ns(CLOCK_MONOTONIC)) / 1000000;
        if (left <= 0)
            break;
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t n = recv(fd, buf + got, want - got, MSG_DONTWAIT);
        if (n <= 0)
            break;
        got += n;
    }
    return got;
}

int main(void)
{
    lo_up();
    int port;

    /* The calls. */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    check("attach on a TCP socket", attach(s, drop_all, 1));
    socklen_t len = 0;
    check("SO_GET_FILTER size", getsockopt(s, SOL_SOCKET, SO_GET_FILTER, NULL, &len));
    out("instructions: %u", (unsigned)len);
    check("detach", detach(s));
    check("detach again", detach(s));
    int one = 1;
    check("SO_LOCK_FILTER", setsockopt(s, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof one));
    check("attach when locked", attach(s, drop_all, 1));
    close(s);

    /* A listener dropping SYNs. */
    int l = listener(&port);
    check("listener attach ret 0", attach(l, drop_all, 1));
    int c = connect_nb(port);
    struct pollfd p = { c, POLLOUT, 0 };
    out("connected within 1 s while dropping: %s", yesno(poll(&p, 1, 1000) > 0));
    check("listener detach", detach(l));
    p.revents = 0;
    out("connected within 20 s after: %s", yesno(poll(&p, 1, 20000) > 0));
    int err = 0;
    len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", err ? errname(err) : "0");
    int a = accept(l, NULL, NULL);
    out("accepted: %s", yesno(a >= 0));
    len = 0;
    check("accepted socket's filter (none)", getsockopt(a, SOL_SOCKET, SO_GET_FILTER, NULL, &len));
    close(a);
    close(c);

    /* An accepted socket inherits the listener's filter; 0 drops data. */
    check("listener attach cut filter", attach(l, header_and_two, 5));
    c = connect_nb(port);
    p.fd = c;
    p.revents = 0;
    poll(&p, 1, 20000);
    a = accept(l, NULL, NULL);
    len = 0;
    check("accepted socket's filter", getsockopt(a, SOL_SOCKET, SO_GET_FILTER, NULL, &len));
    out("instructions: %u", (unsigned)len);
    check("accepted: attach ret 0", attach(a, drop_all, 1));
    show("send hello", send(c, "hello", 5, 0));
    char buf[64];
    out("bytes read within 1 s while dropping: %d", read_for(a, buf, 5, 1000));
    check("accepted: detach", detach(a));
    int got = read_for(a, buf, 5, 20000);
    buf[got] = 0;
    out("after detach: '%s'", buf);

    /* Header and 2 bytes: each segment cut, the rest sent again. */
    check("accepted: attach cut filter", attach(a, header_and_two, 5));
    show("send 5 bytes", send(c, "hello", 5, 0));
    got = read_for(a, buf, 5, 60000);
    buf[got] = 0;
    out("read through the cutting filter: '%s'", buf);
    check("accepted: detach", detach(a));
    show("send after detach", send(c, "bye", 3, 0));
    got = read_for(a, buf, 3, 20000);
    buf[got] = 0;
    out("after detach: '%s'", buf);
    close(a);
    close(c);
    close(l);
    return 0;
}
