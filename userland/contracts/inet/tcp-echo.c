/* TCP over loopback: a forked client connects, sends, and reads back the
 * echo; the accepted socket's peer is the client's local address, both
 * ends agree on the names, and close gives EOF. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    pid_t pid = fork();
    if (pid == 0) {
        int c = tcp_connect(port);
        char buf[64];
        ssize_t w = write(c, "hello, server", 13);
        ssize_t n = read_full(c, buf, 13);
        /* Printed only now: the server has printed its part by then. */
        out("client write: %zd", w);
        out("client read %zd: %.*s", n, (int)(n > 0 ? n : 0), buf);
        show("client read after close", read(c, buf, sizeof buf));
        _exit(0);
    }
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    int a = accept(l, (struct sockaddr *)&peer, &len);
    check("accept", a);
    out("peer len %d family %s addr %s", (int)len, peer.sin_family == AF_INET ? "AF_INET" : "?", inet_ntoa(peer.sin_addr));
    struct sockaddr_in local, remote;
    socklen_t ll = sizeof local, rl = sizeof remote;
    getsockname(a, (struct sockaddr *)&local, &ll);
    getpeername(a, (struct sockaddr *)&remote, &rl);
    out("accepted local port is listener's: %s", yesno(ntohs(local.sin_port) == port));
    out("accepted local addr %s", inet_ntoa(local.sin_addr));
    out("peername matches accept's: %s", yesno(remote.sin_port == peer.sin_port && remote.sin_addr.s_addr == peer.sin_addr.s_addr));
    char buf[64];
    ssize_t n = read_full(a, buf, 13);
    out("server read %zd: %.*s", n, (int)(n > 0 ? n : 0), buf);
    ssize_t w = write(a, buf, n);
    close(a);
    reap("client", pid);
    out("server write: %zd", w);
    close(l);
    return 0;
}
