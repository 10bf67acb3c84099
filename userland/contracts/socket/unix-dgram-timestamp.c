/* SO_TIMESTAMP on an AF_UNIX datagram socket (systemd-journald's native
 * socket sets it and stops if it fails): the option reads back, each
 * message received then carries an SCM_TIMESTAMP control message (a struct
 * timeval close to the time of the call) before SCM_CREDENTIALS; off
 * again, none. */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include "common.h"

static void receive(const char *label, int fd)
{
    char data[64];
    char control[256];
    struct iovec iov = {data, sizeof data};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct timeval before;
    gettimeofday(&before, NULL);
    ssize_t n = recvmsg(fd, &m, 0);
    if (n < 0) {
        out("%s: recvmsg %s", label, errname(errno));
        return;
    }
    out("%s: %zd bytes, flags %d", label, n, m.msg_flags);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMP) {
            struct timeval tv;
            memcpy(&tv, CMSG_DATA(c), sizeof tv);
            long long d = (tv.tv_sec - before.tv_sec) * 1000000LL + (tv.tv_usec - before.tv_usec);
            out("  SCM_TIMESTAMP len %zu, within 10 s of the call: %s, usec in range: %s", (size_t)c->cmsg_len,
                yesno(d > -10000000LL && d < 10000000LL), yesno(tv.tv_usec >= 0 && tv.tv_usec < 1000000));
        } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
            out("  SCM_CREDENTIALS len %zu", (size_t)c->cmsg_len);
        } else {
            out("  level %d type %d", c->cmsg_level, c->cmsg_type);
        }
    }
}

int main(void)
{
    int sv[2];
    check("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
    int one = 1, zero = 0, v = -1;
    socklen_t len = sizeof v;
    check("getsockopt SO_TIMESTAMP", getsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP, &v, &len));
    out("value %d", v);
    check("setsockopt SO_TIMESTAMP", setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP, &one, sizeof one));
    len = sizeof v;
    check("getsockopt SO_TIMESTAMP", getsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP, &v, &len));
    out("value %d", v);
    send(sv[0], "one", 3, 0);
    receive("timestamped", sv[1]);
    check("setsockopt SO_PASSCRED", setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one));
    send(sv[0], "two", 3, 0);
    receive("with credentials", sv[1]);
    check("setsockopt SO_TIMESTAMP 0", setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP, &zero, sizeof zero));
    send(sv[0], "three", 5, 0);
    receive("off", sv[1]);
    return 0;
}
