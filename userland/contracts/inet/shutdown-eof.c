/* shutdown: SHUT_WR sends FIN (the peer reads the data, then 0) while the
 * other direction keeps working; a write after SHUT_WR is EPIPE; SHUT_RD
 * makes reads return 0; shutdown of an unconnected socket is ENOTCONN. */
#include "inet.h"

int main(void)
{
    lo_up();
    signal(SIGPIPE, SIG_IGN);
    int port = 0;
    int l = tcp_listener(&port);
    int c = tcp_connect(port);
    int s = accept(l, NULL, NULL);
    write(c, "data", 4);
    check("shutdown(SHUT_WR)", shutdown(c, SHUT_WR));
    char buf[16];
    ssize_t n = read_full(s, buf, 4);
    out("server read %zd: %.*s", n, (int)(n > 0 ? n : 0), buf);
    show("server read at EOF", read(s, buf, sizeof buf));
    out("server poll: %s", pollbits(poll_one(s, POLLIN | POLLOUT | POLLRDHUP, 0)));
    show("server write after client's SHUT_WR", write(s, "back", 4));
    n = read_full(c, buf, 4);
    out("client read %zd: %.*s", n, (int)(n > 0 ? n : 0), buf);
    show("client write after SHUT_WR", write(c, "x", 1));
    check("server shutdown(SHUT_RD)", shutdown(s, SHUT_RD));
    show("server read after SHUT_RD", read(s, buf, sizeof buf));
    check("shutdown(SHUT_RDWR)", shutdown(s, SHUT_RDWR));
    show("client read after server's SHUT_RDWR", read(c, buf, sizeof buf));
    show("shutdown bad how", shutdown(c, 7));
    int u = socket(AF_INET, SOCK_STREAM, 0);
    show("shutdown unconnected", shutdown(u, SHUT_RDWR));
    return 0;
}
