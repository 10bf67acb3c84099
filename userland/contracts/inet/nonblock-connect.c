/* Non-blocking connect: EINPROGRESS, then poll reports POLLOUT, SO_ERROR
 * is 0, and connect again reports success once, then EISCONN. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = lo_addr(port);
    show("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    int ev = poll_one(c, POLLIN | POLLOUT, 2000);
    out("poll: %s", pollbits(ev));
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", errname(err));
    show("connect again", connect(c, (struct sockaddr *)&a, sizeof a));
    show("connect third time", connect(c, (struct sockaddr *)&a, sizeof a));
    int s = accept(l, NULL, NULL);
    check("accept", s);
    show("nonblocking read, nothing sent", read(c, &err, 1));
    write(s, "z", 1);
    /* Loopback delivery may lag the write (Linux hands it to a softirq):
     * wait for the data, then look at both events. */
    poll_one(c, POLLIN, 2000);
    out("poll after data: %s", pollbits(poll_one(c, POLLIN | POLLOUT, 0)));
    char b;
    show("read", read(c, &b, 1));
    return 0;
}
