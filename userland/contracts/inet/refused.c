/* Connecting to a port nobody listens on: ECONNREFUSED from a blocking
 * connect; from a non-blocking one EINPROGRESS, then POLLERR and
 * SO_ERROR ECONNREFUSED (read once, then 0). A bound but not listening
 * socket refuses too. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int b = bound_socket(SOCK_STREAM, &port);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = lo_addr(port);
    show("blocking connect to bound socket", connect(c, (struct sockaddr *)&a, sizeof a));
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR after: %s", errname(err));
    close(c);
    close(b);

    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    show("nonblocking connect to closed port", connect(c, (struct sockaddr *)&a, sizeof a));
    int ev = poll_one(c, POLLOUT, 2000);
    out("poll has ERR: %s, OUT: %s, HUP: %s", yesno(ev & POLLERR), yesno(ev & POLLOUT), yesno(ev & POLLHUP));
    len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", errname(err));
    len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR again: %s", errname(err));
    close(c);
    return 0;
}
