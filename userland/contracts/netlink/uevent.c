/* NETLINK_KOBJECT_UEVENT as udev opens it: SOCK_DGRAM, bound to group 1,
 * SO_PASSCRED and SO_RCVBUF set; nothing to read while no device comes or
 * goes (poll not readable, EAGAIN). */
#include "nl.h"

int main(void)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    check("socket", fd);
    int on = 1, size = 128 * 1024 * 1024;
    check("SO_PASSCRED", setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on));
    check("SO_RCVBUF", setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size));
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
    check("bind group 1", bind(fd, (struct sockaddr *)&sa, sizeof sa));
    struct sockaddr_nl got;
    socklen_t l = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &l);
    out("groups %#x pid is ours %s", got.nl_groups, yesno(got.nl_pid == (uint32_t)getpid()));
    struct pollfd p = {.fd = fd, .events = POLLIN};
    out("poll: %d", poll(&p, 1, 100));
    char buf[4096];
    check("recv", recv(fd, buf, sizeof buf, 0));
    sa.nl_groups = 0xffffffff;
    check("bind all groups", bind(fd, (struct sockaddr *)&sa, sizeof sa));
    l = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &l);
    out("groups %#x", got.nl_groups);
    return 0;
}
