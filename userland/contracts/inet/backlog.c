/* listen's backlog: with backlog 1 the accept queue holds two completed
 * connections; a third client's SYN is dropped (not refused), so its
 * non-blocking connect stays in progress until accept makes room and the
 * client's SYN is retransmitted. */
#include "inet.h"

static int nb_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = lo_addr(port);
    connect(fd, (struct sockaddr *)&a, sizeof a);
    return fd;
}

int main(void)
{
    lo_up();
    int port = 0;
    int l = bound_socket(SOCK_STREAM, &port);
    listen(l, 1);
    int c1 = nb_connect(port);
    int c2 = nb_connect(port);
    out("first connects: %s", yesno(poll_one(c1, POLLOUT, 2000) == POLLOUT));
    out("second connects: %s", yesno(poll_one(c2, POLLOUT, 2000) == POLLOUT));
    int c3 = nb_connect(port);
    out("third while the queue is full: %s", pollbits(poll_one(c3, POLLOUT, 300)));
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(c3, SOL_SOCKET, SO_ERROR, &err, &len);
    out("third SO_ERROR: %s", errname(err));
    int a1 = accept(l, NULL, NULL);
    check("accept", a1);
    out("third after accept: %s", pollbits(poll_one(c3, POLLOUT, 5000)));
    int a2 = accept(l, NULL, NULL);
    int a3 = accept(l, NULL, NULL);
    out("accepted all three: %s", yesno(a1 >= 0 && a2 >= 0 && a3 >= 0));
    return 0;
}
