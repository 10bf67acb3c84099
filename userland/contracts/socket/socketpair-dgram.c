/* socketpair(AF_UNIX, SOCK_DGRAM) and SOCK_RAW (a datagram socket on
 * AF_UNIX): every send is one datagram, read whole or truncated
 * (MSG_TRUNC in msg_flags; the rest is dropped), never joined; MSG_TRUNC
 * makes recv return the full length; MSG_PEEK; empty datagrams; a
 * datagram over the send buffer is EMSGSIZE; large datagrams arrive whole
 * through read(); a closed peer refuses the next send, then the socket is
 * unconnected. */
#include "common.h"
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

static void show_read(const char *label, ssize_t r, const char *buf)
{
    if (r < 0)
        out("%s: -1 %s", label, errname(errno));
    else
        out("%s: %zd '%.*s'", label, r, (int)r, buf);
}

int main(void)
{
    int sv[2];
    char buf[64];
    check("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
    show("send one", send(sv[0], "one", 3, 0));
    show("send two", send(sv[0], "two!", 4, 0));
    show("write three", write(sv[0], "three", 5));
    int n = -1;
    ioctl(sv[1], FIONREAD, &n);
    out("FIONREAD (first datagram): %d", n);
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    show_read("read", read(sv[1], buf, sizeof buf), buf);
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    show("recv empty", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));

    /* Truncation. */
    send(sv[0], "truncated", 9, 0);
    send(sv[0], "next", 4, 0);
    struct iovec iov = {buf, 4};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    ssize_t r = recvmsg(sv[1], &mh, 0);
    out("recvmsg 4 of 9: %zd '%.*s' MSG_TRUNC: %s", r, (int)r, buf, yesno(mh.msg_flags & MSG_TRUNC));
    show_read("next datagram", recv(sv[1], buf, sizeof buf, 0), buf);
    send(sv[0], "truncated", 9, 0);
    show("recv 4 with MSG_TRUNC flag", recv(sv[1], buf, 4, MSG_TRUNC));
    out("data: '%.4s'", buf);
    mh.msg_flags = -1;
    send(sv[0], "fits", 4, 0);
    iov.iov_len = sizeof buf;
    r = recvmsg(sv[1], &mh, 0);
    out("recvmsg whole: %zd msg_flags: %d", r, mh.msg_flags);

    /* Peeking. */
    send(sv[0], "peeked", 6, 0);
    show_read("MSG_PEEK", recv(sv[1], buf, 4, MSG_PEEK), buf);
    show_read("recv after peek", recv(sv[1], buf, sizeof buf, 0), buf);

    /* Empty datagrams count. */
    show("send empty", send(sv[0], "", 0, 0));
    show("write empty", write(sv[0], buf, 0));
    send(sv[0], "after", 5, 0);
    show("recv empty datagram", recv(sv[1], buf, sizeof buf, 0));
    show("read empty datagram", read(sv[1], buf, sizeof buf));
    show_read("recv after empties", recv(sv[1], buf, sizeof buf, 0), buf);

    /* One datagram spread over iovecs. */
    struct iovec wv[3] = {{"ab", 2}, {"", 0}, {"cde", 3}};
    show("writev", writev(sv[0], wv, 3));
    char a[3], b[10];
    struct iovec rv[2] = {{a, 3}, {b, sizeof b}};
    r = readv(sv[1], rv, 2);
    out("readv: %zd '%.3s' '%.*s'", r, a, (int)(r > 3 ? r - 3 : 0), b);

    /* Sizes. */
    size_t big = 300000;
    char *p = malloc(big);
    memset(p, 'z', big);
    show("send 300000", send(sv[0], p, big, 0));
    for (size_t i = 0; i < 100000; i++)
        p[i] = (char)(i * 7);
    show("send 100000", send(sv[0], p, 100000, 0));
    char *q = malloc(big);
    r = read(sv[1], q, big);
    out("read 100000: %zd intact: %s", r, yesno(r == 100000 && memcmp(p, q, 100000) == 0));

    /* SOCK_RAW is a datagram socket. */
    int raw[2];
    check("socketpair SOCK_RAW", socketpair(AF_UNIX, SOCK_RAW, 0, raw));
    int type = -1;
    socklen_t len = sizeof type;
    getsockopt(raw[0], SOL_SOCKET, SO_TYPE, &type, &len);
    out("SO_TYPE is SOCK_DGRAM: %s", yesno(type == SOCK_DGRAM));

    /* The peer closes. */
    send(sv[1], "to closing", 10, 0);
    check("close peer", close(sv[1]));
    show_read("queued datagram still readable", recv(sv[0], buf, sizeof buf, 0), buf);
    show("recv nothing", recv(sv[0], buf, sizeof buf, MSG_DONTWAIT));
    show("send to closed peer", send(sv[0], "x", 1, 0));
    show("send again", send(sv[0], "x", 1, 0));
    struct sockaddr_un sa;
    len = sizeof sa;
    show("getpeername", getpeername(sv[0], (struct sockaddr *)&sa, &len));
    return 0;
}
