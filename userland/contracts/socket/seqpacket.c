/* SOCK_SEQPACKET on AF_UNIX: connection-based like a stream (socketpair,
 * listen/connect/accept, end of file when the peer closes) with record
 * boundaries like datagrams (one record per read, MSG_TRUNC, MSG_PEEK,
 * empty records, MSG_WAITALL does not join records); unconnected sockets
 * are ENOTCONN; a destination address is ignored; writing to a closed
 * peer is EPIPE without SIGPIPE. */
#include "common.h"
#include <poll.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

static volatile int sigpipes;
static void on_pipe(int s) { (void)s; sigpipes++; }

static void show_read(const char *label, ssize_t r, const char *buf)
{
    if (r < 0)
        out("%s: -1 %s", label, errname(errno));
    else
        out("%s: %zd '%.*s'", label, r, (int)r, buf);
}

int main(void)
{
    signal(SIGPIPE, on_pipe);
    int sv[2];
    char buf[64];
    check("socketpair", socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
    int type = 0;
    socklen_t len = sizeof type;
    getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len);
    out("SO_TYPE is SOCK_SEQPACKET: %s", yesno(type == SOCK_SEQPACKET));
    send(sv[0], "one", 3, 0);
    send(sv[0], "two!", 4, 0);
    write(sv[0], "three", 5);
    int n = -1;
    ioctl(sv[1], FIONREAD, &n);
    out("FIONREAD: %d", n);
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    show_read("read", read(sv[1], buf, sizeof buf), buf);
    show_read("recv MSG_WAITALL", recv(sv[1], buf, sizeof buf, MSG_WAITALL), buf);

    send(sv[0], "truncated", 9, 0);
    send(sv[0], "next", 4, 0);
    struct iovec iov = {buf, 4};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    ssize_t r = recvmsg(sv[1], &mh, 0);
    out("recvmsg 4 of 9: %zd MSG_TRUNC %s MSG_EOR %s", r, yesno(mh.msg_flags & MSG_TRUNC), yesno(mh.msg_flags & MSG_EOR));
    show_read("next record", recv(sv[1], buf, sizeof buf, 0), buf);
    send(sv[0], "truncated", 9, 0);
    show("recv 4 with MSG_TRUNC", recv(sv[1], buf, 4, MSG_TRUNC));
    send(sv[0], "peeked", 6, 0);
    show_read("MSG_PEEK", recv(sv[1], buf, 3, MSG_PEEK), buf);
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    show("send an empty record", send(sv[0], "", 0, 0));
    send(sv[0], "after", 5, 0);
    show("recv the empty record", recv(sv[1], buf, sizeof buf, 0));
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    struct sockaddr_un elsewhere = {.sun_family = AF_UNIX, .sun_path = "nowhere"};
    show("sendto with an address", sendto(sv[0], "addr", 4, 0, (struct sockaddr *)&elsewhere, sizeof elsewhere));
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    char *big = malloc(100000), *back = malloc(100000);
    for (int i = 0; i < 100000; i++)
        big[i] = (char)(i * 13);
    show("write 100000", write(sv[0], big, 100000));
    r = read(sv[1], back, 100000);
    out("read 100000: %zd intact %s", r, yesno(r == 100000 && memcmp(big, back, 100000) == 0));
    char *huge = calloc(1, 300000);
    show("send 300000", send(sv[0], huge, 300000, 0));

    /* The peer closes. */
    send(sv[1], "bye", 3, 0);
    close(sv[1]);
    show_read("queued record", recv(sv[0], buf, sizeof buf, 0), buf);
    show("end of file", recv(sv[0], buf, sizeof buf, 0));
    show("non-blocking end of file", recv(sv[0], buf, sizeof buf, MSG_DONTWAIT));
    struct pollfd p = {sv[0], POLLIN | POLLOUT | POLLRDHUP, 0};
    poll(&p, 1, 0);
    out("poll: IN %s OUT %s HUP %s RDHUP %s", yesno(p.revents & POLLIN), yesno(p.revents & POLLOUT), yesno(p.revents & POLLHUP),
        yesno(p.revents & POLLRDHUP));
    sigpipes = 0;
    show("write to the closed peer", write(sv[0], "x", 1));
    out("SIGPIPEs: %d", sigpipes);
    close(sv[0]);

    /* Unconnected sockets. */
    int u = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    show("send unconnected", send(u, "x", 1, 0));
    show("sendto unconnected", sendto(u, "x", 1, 0, (struct sockaddr *)&elsewhere, sizeof elsewhere));
    show("recv unconnected", recv(u, buf, sizeof buf, MSG_DONTWAIT));
    show("read unconnected", read(u, buf, sizeof buf));

    /* Connections through a path. */
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "seq.sock"};
    check("bind", bind(u, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(u, 2));
    show("recv on the listener", recv(u, buf, sizeof buf, MSG_DONTWAIT));
    int c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    check("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    send(c, "rec1", 4, 0);
    send(c, "rec2", 4, 0);
    int s = accept(u, NULL, NULL);
    check("accept", s);
    show_read("first record", recv(s, buf, sizeof buf, 0), buf);
    show_read("second record", recv(s, buf, sizeof buf, 0), buf);
    struct sockaddr_un name;
    len = sizeof name;
    getpeername(c, (struct sockaddr *)&name, &len);
    out("peer name: %s", name.sun_path);
    int st = socket(AF_UNIX, SOCK_STREAM, 0);
    show("a stream socket connecting", connect(st, (struct sockaddr *)&a, sizeof a));
    return 0;
}
