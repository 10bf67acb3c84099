/* The errors of the socket calls, in Linux's order: unknown families,
 * types, flags and protocols; bad fds, non-sockets, bad addresses and
 * lengths; calls in the wrong state (listen unbound, accept without
 * listen, read/write unconnected, connect twice); unknown options. */
#include "common.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/in.h>

#define BAD ((void *)8)

static socklen_t path_addr(struct sockaddr_un *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    strcpy(a->sun_path, path);
    return offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1;
}

int main(void)
{
    int fd;
    show("socket(AF_UNSPEC)", socket(AF_UNSPEC, SOCK_STREAM, 0));
    show("socket(family 46)", socket(46, SOCK_STREAM, 0));
    show("socket(family -1)", socket(-1, SOCK_STREAM, 0));
    show("socket(family 12345)", socket(12345, SOCK_STREAM, 0));
    show("socket(family 12345, type 99)", socket(12345, 99, 0));
    show("socket(unknown flag)", socket(AF_UNIX, SOCK_STREAM | 0x40000000, 0));
    show("socket(type 11)", socket(AF_UNIX, 11, 0));
    show("socket(type 0)", socket(AF_UNIX, 0, 0));
    show("socket(SOCK_RDM)", socket(AF_UNIX, SOCK_RDM, 0));
    show("socket(SOCK_PACKET)", socket(AF_UNIX, SOCK_PACKET, 0));
    show("socket(protocol 2)", socket(AF_UNIX, SOCK_STREAM, 2));
    show("socket(protocol -1)", socket(AF_UNIX, SOCK_STREAM, -1));
    show("socket(protocol 2, SOCK_RDM)", socket(AF_UNIX, SOCK_RDM, 2));
    fd = socket(AF_UNIX, SOCK_STREAM, PF_UNIX);
    check("socket(protocol PF_UNIX)", fd);
    int proto = -1;
    socklen_t ol = sizeof proto;
    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &ol);
    out("SO_PROTOCOL: %d", proto);
    close(fd);
    int sv[2];
    rcheck("socketpair(NULL)", rawsys(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, 0, 0, 0));
    rcheck("socketpair(NULL, family 46)", rawsys(SYS_socketpair, 46, SOCK_STREAM, 0, 0, 0, 0));
    show("socketpair(unknown flag)", socketpair(AF_UNIX, SOCK_DGRAM | 0x40000000, 0, sv));
    show("socketpair(family 46)", socketpair(46, SOCK_STREAM, 0, sv));
    show("socketpair(SOCK_RDM)", socketpair(AF_UNIX, SOCK_RDM, 0, sv));

    /* Not a socket, not an fd. */
    int p[2];
    pipe(p);
    struct sockaddr_un a;
    socklen_t alen = path_addr(&a, "s.sock");
    socklen_t len = sizeof a;
    char buf[8];
    int one = 1;
    struct msghdr mh = {0};
    show("bind(pipe)", bind(p[0], (struct sockaddr *)&a, alen));
    show("listen(pipe)", listen(p[0], 1));
    show("accept(pipe)", accept(p[0], NULL, NULL));
    show("connect(pipe)", connect(p[0], (struct sockaddr *)&a, alen));
    show("connect(pipe, bad address)", connect(p[0], BAD, alen));
    show("getsockname(pipe)", getsockname(p[0], (struct sockaddr *)&a, &len));
    show("getpeername(pipe)", getpeername(p[0], (struct sockaddr *)&a, &len));
    show("sendto(pipe)", sendto(p[1], "x", 1, 0, NULL, 0));
    show("recvfrom(pipe)", recvfrom(p[0], buf, 1, 0, NULL, NULL));
    show("sendmsg(pipe)", sendmsg(p[1], &mh, 0));
    show("recvmsg(pipe)", recvmsg(p[0], &mh, 0));
    show("shutdown(pipe)", shutdown(p[0], SHUT_RD));
    show("setsockopt(pipe)", setsockopt(p[0], SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one));
    show("getsockopt(pipe)", getsockopt(p[0], SOL_SOCKET, SO_TYPE, &one, &len));
    show("bind(fd 999)", bind(999, (struct sockaddr *)&a, alen));
    show("listen(-1)", listen(-1, 1));
    show("accept(fd 999)", accept(999, NULL, NULL));
    show("sendto(fd 999)", sendto(999, "x", 1, 0, NULL, 0));
    show("sendto(fd 999, bad buffer)", sendto(999, BAD, 1, 0, NULL, 0));

    /* bind. */
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    show("bind(length 0)", bind(fd, (struct sockaddr *)&a, 0));
    show("bind(length 1)", bind(fd, (struct sockaddr *)&a, 1));
    show("bind(length -1)", bind(fd, (struct sockaddr *)&a, -1));
    show("bind(length 111)", bind(fd, (struct sockaddr *)&a, 111));
    show("bind(length 129)", bind(fd, (struct sockaddr *)&a, 129));
    show("bind(bad address)", bind(fd, BAD, alen));
    struct sockaddr_un wrong = a;
    wrong.sun_family = AF_INET;
    show("bind(AF_INET address)", bind(fd, (struct sockaddr *)&wrong, alen));
    show("bind(AF_INET family only)", bind(fd, (struct sockaddr *)&wrong, sizeof(sa_family_t)));

    /* listen and accept. */
    show("listen(unbound)", listen(fd, 1));
    show("accept(not listening)", accept(fd, NULL, NULL));
    int dg = socket(AF_UNIX, SOCK_DGRAM, 0);
    show("listen(datagram)", listen(dg, 1));
    show("accept(datagram)", accept(dg, NULL, NULL));
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    show("listen(connected)", listen(sv[0], 1));
    check("bind", bind(fd, (struct sockaddr *)&a, alen));
    check("listen", listen(fd, 1));
    check("listen again", listen(fd, 3));
    /* Non-blocking, so a kernel that took the flags could not hang here. */
    fcntl(fd, F_SETFL, O_NONBLOCK);
    /* Raw: musl retries a refused accept4 as accept. */
    rcheck("accept4(unknown flag)", rawsys(SYS_accept4, fd, 0, 0, 0x40000000, 0, 0));
    rcheck("accept4(O_APPEND)", rawsys(SYS_accept4, fd, 0, 0, O_APPEND, 0, 0));
    rcheck("accept4(unknown flag, fd 999)", rawsys(SYS_accept4, 999, 0, 0, 0x40000000, 0, 0));
    show("accept4(SOCK_NONBLOCK), nothing pending", accept4(fd, NULL, NULL, SOCK_NONBLOCK));
    show("read(listening)", read(fd, buf, 1));
    show("write(listening)", write(fd, "x", 1));
    show("connect(listening)", connect(fd, (struct sockaddr *)&a, alen));
    show("getpeername(listening)", getpeername(fd, (struct sockaddr *)&a, &len));

    /* connect. */
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    show("connect(length 2)", connect(c, (struct sockaddr *)&a, 2));
    show("connect(length 129)", connect(c, (struct sockaddr *)&a, 129));
    show("connect(AF_INET address)", connect(c, (struct sockaddr *)&wrong, alen));
    show("read(unconnected)", read(c, buf, 1));
    show("write(unconnected)", write(c, "x", 1));
    show("recv(unconnected)", recv(c, buf, 1, MSG_DONTWAIT));
    show("sendto(unconnected, address)", sendto(c, "x", 1, 0, (struct sockaddr *)&a, alen));
    show("getpeername(unconnected)", getpeername(c, (struct sockaddr *)&a, &len));
    check("connect", connect(c, (struct sockaddr *)&a, alen));
    show("connect again", connect(c, (struct sockaddr *)&a, alen));
    struct sockaddr_un missing;
    socklen_t mlen = path_addr(&missing, "missing.sock");
    show("connect again to a missing path", connect(c, (struct sockaddr *)&missing, mlen));
    show("sendto(connected, address)", sendto(c, "x", 1, 0, (struct sockaddr *)&a, alen));
    show("sendto(connected, address length 0)", sendto(c, "x", 1, 0, (struct sockaddr *)&a, 0));
    show("sendto(bad buffer)", sendto(c, BAD, 1, 0, NULL, 0));
    show("recvfrom(bad buffer)", recvfrom(c, BAD, 1, MSG_DONTWAIT, NULL, NULL));
    show("send(MSG_OOB) on a datagram socket", send(dg, "x", 1, MSG_OOB));

    /* Datagram sockets. */
    show("send(unconnected datagram)", send(dg, "x", 1, 0));
    show("sendto(missing path)", sendto(dg, "x", 1, 0, (struct sockaddr *)&missing, mlen));
    show("sendto(stream listener)", sendto(dg, "x", 1, 0, (struct sockaddr *)&a, alen));
    struct sockaddr_un nobody = {.sun_family = AF_UNIX, .sun_path = "\0kevlar-nobody"};
    show("sendto(unbound abstract name)", sendto(dg, "x", 1, 0, (struct sockaddr *)&nobody, offsetof(struct sockaddr_un, sun_path) + 14));
    show("sendto(length 1)", sendto(dg, "x", 1, 0, (struct sockaddr *)&a, 1));
    show("connect(datagram, length 1)", connect(dg, (struct sockaddr *)&a, 1));
    show("recv(datagram, nothing)", recv(dg, buf, 1, MSG_DONTWAIT));

    /* msghdr. */
    rcheck("sendmsg(bad msghdr)", rawsys(SYS_sendmsg, sv[0], (long)BAD, 0, 0, 0, 0));
    rcheck("recvmsg(bad msghdr)", rawsys(SYS_recvmsg, sv[0], (long)BAD, MSG_DONTWAIT, 0, 0, 0));
    struct iovec iov = {buf, 1};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1025;
    show("sendmsg(1025 iovecs)", sendmsg(sv[0], &mh, 0));
    mh.msg_iovlen = 1;
    mh.msg_namelen = -1;
    mh.msg_name = &a;
    show("sendmsg(negative name length)", sendmsg(sv[0], &mh, 0));
    mh.msg_name = NULL;
    show("sendmsg(no name, negative length)", sendmsg(sv[0], &mh, 0));
    mh.msg_namelen = 0;
    iov.iov_base = BAD;
    show("sendmsg(bad iovec)", sendmsg(sv[0], &mh, 0));
    iov.iov_base = buf;
    show("sendmsg(MSG_CMSG_COMPAT)", sendmsg(sv[0], &mh, 0x80000000));
    show("recvmsg(MSG_CMSG_COMPAT)", recvmsg(sv[0], &mh, 0x80000000 | MSG_DONTWAIT));

    /* shutdown and options. */
    show("shutdown(how 3)", shutdown(sv[0], 3));
    show("shutdown(how -1)", shutdown(sv[0], -1));
    show("setsockopt(level IPPROTO_TCP)", setsockopt(sv[0], IPPROTO_TCP, 1, &one, sizeof one));
    show("setsockopt(unknown option)", setsockopt(sv[0], SOL_SOCKET, 9999, &one, sizeof one));
    show("setsockopt(length 2)", setsockopt(sv[0], SOL_SOCKET, SO_KEEPALIVE, &one, 2));
    show("setsockopt(length 2, unknown option)", setsockopt(sv[0], SOL_SOCKET, 9999, &one, 2));
    show("setsockopt(length -1)", setsockopt(sv[0], SOL_SOCKET, SO_KEEPALIVE, &one, -1));
    show("setsockopt(bad value)", setsockopt(sv[0], SOL_SOCKET, SO_KEEPALIVE, BAD, sizeof one));
    show("setsockopt(SO_TYPE)", setsockopt(sv[0], SOL_SOCKET, SO_TYPE, &one, sizeof one));
    show("setsockopt(SO_SNDLOWAT)", setsockopt(sv[0], SOL_SOCKET, SO_SNDLOWAT, &one, sizeof one));
    show("getsockopt(level IPPROTO_TCP)", getsockopt(sv[0], IPPROTO_TCP, 1, &one, &len));
    show("getsockopt(unknown option)", getsockopt(sv[0], SOL_SOCKET, 9999, &one, &len));
    len = -1;
    show("getsockopt(length -1)", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &one, &len));
    show("getsockopt(bad length pointer)", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &one, BAD));
    len = sizeof one;
    show("getsockopt(bad value)", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, BAD, &len));
    len = sizeof a;
    show("getsockname(bad length pointer)", getsockname(sv[0], (struct sockaddr *)&a, BAD));
    len = -1;
    show("getsockname(length -1)", getsockname(fd, (struct sockaddr *)&a, &len));
    len = sizeof a;
    show("getsockname(bad address)", getsockname(fd, BAD, &len));
    len = 0;
    show("getsockname(length 0, bad address)", getsockname(fd, BAD, &len));
    out("  length back: %d", (int)len);
    return 0;
}
