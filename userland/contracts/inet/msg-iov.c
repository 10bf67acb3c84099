/* sendmsg/recvmsg on AF_INET sockets: gathered and scattered iovecs on a
 * TCP stream, UDP datagrams with msg_name (the sender's address) and
 * without, msg_namelen, and a socket shared across fork (both processes
 * write on one connection, in turn). Connecting to 0.0.0.0 reaches this
 * host. */
#include "inet.h"
#include <sys/uio.h>

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int c = tcp_connect(port);
    int s = accept(l, NULL, NULL);
    struct iovec gather[3] = {{"abc", 3}, {"", 0}, {"defgh", 5}};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = gather;
    mh.msg_iovlen = 3;
    show("sendmsg 3 iovecs", sendmsg(c, &mh, 0));
    char a[2], b[4], rest[16];
    struct iovec in[2] = {{a, 2}, {b, 4}};
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = in;
    mh.msg_iovlen = 2;
    msleep(20);
    ssize_t n = recvmsg(s, &mh, 0);
    out("recvmsg %zd: [%.2s] [%.4s], flags %d", n, a, b, mh.msg_flags);
    n = read(s, rest, sizeof rest);
    out("rest %zd: %.*s", n, (int)n, rest);
    struct iovec wv[2] = {{"wr", 2}, {"itev", 4}};
    show("writev", writev(c, wv, 2));
    n = read_full(s, rest, 6);
    out("read %zd: %.*s", n, (int)n, rest);

    pid_t pid = fork();
    if (pid == 0) {
        write(c, "child ", 6);
        _exit(0);
    }
    reap("child", pid);
    write(c, "parent", 6);
    n = read_full(s, rest, 12);
    out("shared socket %zd: %.*s", n, (int)n, rest);

    int up = 0;
    int u = bound_socket(SOCK_DGRAM, &up);
    int v = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = lo_addr(up);
    struct iovec dv[2] = {{"data", 4}, {"gram", 4}};
    memset(&mh, 0, sizeof mh);
    mh.msg_name = &to;
    mh.msg_namelen = sizeof to;
    mh.msg_iov = dv;
    mh.msg_iovlen = 2;
    show("sendmsg datagram", sendmsg(v, &mh, 0));
    struct sockaddr_in from;
    char d1[3], d2[16];
    struct iovec rv[2] = {{d1, 3}, {d2, 16}};
    memset(&mh, 0, sizeof mh);
    memset(&from, 0, sizeof from);
    mh.msg_name = &from;
    mh.msg_namelen = sizeof from + 10;
    mh.msg_iov = rv;
    mh.msg_iovlen = 2;
    n = recvmsg(u, &mh, 0);
    out("recvmsg datagram %zd: [%.3s] [%.5s], namelen %d, from port matches %s", n, d1, d2, (int)mh.msg_namelen, yesno(ntohs(from.sin_port) == port_of(v)));
    sendto(v, "x", 1, 0, (struct sockaddr *)&to, sizeof to);
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = rv;
    mh.msg_iovlen = 1;
    show("recvmsg without a name", recvmsg(u, &mh, 0));

    struct sockaddr_in any = lo_addr(port);
    any.sin_addr.s_addr = htonl(INADDR_ANY);
    int z = socket(AF_INET, SOCK_STREAM, 0);
    check("connect to 0.0.0.0", connect(z, (struct sockaddr *)&any, sizeof any));
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    getpeername(z, (struct sockaddr *)&peer, &len);
    out("peer: %s", inet_ntoa(peer.sin_addr));
    return 0;
}
