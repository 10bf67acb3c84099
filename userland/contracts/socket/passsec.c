/* SO_PASSSEC (systemd and journald set it on their AF_UNIX sockets): a
 * flag every socket keeps and reports; a message received with it set
 * carries no ancillary data when no security module labels it. */
#include "../common.h"
#include <sys/socket.h>
#include <netinet/in.h>

static void flag(const char *label, int fd)
{
    int one = 1, v = -1;
    socklen_t len = sizeof v;
    int r = setsockopt(fd, SOL_SOCKET, SO_PASSSEC, &one, sizeof one);
    int g = getsockopt(fd, SOL_SOCKET, SO_PASSSEC, &v, &len);
    out("%s: set %s, reads %d", label, r ? errname(errno) : "ok", g ? -errno : v);
}

int main(void)
{
    int dg[2], st[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg);
    socketpair(AF_UNIX, SOCK_STREAM, 0, st);
    int in = socket(AF_INET, SOCK_DGRAM, 0);
    int v = -1;
    socklen_t len = sizeof v;
    getsockopt(dg[1], SOL_SOCKET, SO_PASSSEC, &v, &len);
    out("default: %d", v);
    flag("unix dgram", dg[1]);
    flag("unix stream", st[1]);
    flag("inet dgram", in);
    int zero = 0;
    setsockopt(in, SOL_SOCKET, SO_PASSSEC, &zero, sizeof zero);
    len = sizeof v;
    getsockopt(in, SOL_SOCKET, SO_PASSSEC, &v, &len);
    out("cleared: %d", v);
    send(dg[0], "x", 1, 0);
    char data[4], control[256];
    struct iovec iov = { data, sizeof data };
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    ssize_t n = recvmsg(dg[1], &m, 0);
    int count = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        count++;
    out("received %zd byte(s), %d control message(s)", n, count);
    return 0;
}
