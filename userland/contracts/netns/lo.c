/* A new network namespace (unshare(CLONE_NEWNET)) has only lo, down and
 * without an address: connecting to 127.0.0.1 is ENETUNREACH for TCP
 * and UDP (binding it works), /proc/net/if_inet6 is empty. `ip
 * link set lo up` (RTM_NEWLINK with IFF_UP) gives it 127.0.0.1/8 and
 * ::1/128; then a TCP connection over it works. Taking lo down again
 * keeps 127.0.0.1 and drops ::1, as Linux's inet and addrconf do. */
#include "netns.h"

static void if_inet6_lines(const char *label)
{
    char buf[4096];
    int fd = open("/proc/net/if_inet6", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read_full(fd, buf, sizeof buf);
    if (fd >= 0)
        close(fd);
    int lines = 0;
    for (ssize_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    out("%s: /proc/net/if_inet6 %s %d lines", label, fd < 0 ? errname(errno) : "ok", n < 0 ? -1 : lines);
}

int main(void)
{
    char before[64], after[64];
    net_link(before, sizeof before);
    check("unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
    net_link(after, sizeof after);
    out("ns/net link starts net: %s, changed: %s", yesno(strncmp(after, "net:[", 5) == 0), yesno(strcmp(before, after) != 0));
    show_net("fresh namespace");
    if_inet6_lines("fresh");
    out("tcp connect 127.0.0.1: %s", try_connect(SOCK_STREAM, 5000));
    out("udp connect 127.0.0.1: %s", try_connect(SOCK_DGRAM, 5000));
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(5000);
    check("bind 127.0.0.1:5000", bind(s, (struct sockaddr *)&a, sizeof a));
    close(s);

    out("RTM_NEWLINK lo up: %s", nlerr(link_set_up(1, 1)));
    show_net("lo up");
    if_inet6_lines("lo up");
    int l = socket(AF_INET, SOCK_STREAM, 0);
    check("bind 127.0.0.1:5000", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 4));
    out("tcp connect 127.0.0.1:5000: %s", try_connect(SOCK_STREAM, 5000));
    out("tcp connect 127.0.0.1:5001: %s", try_connect(SOCK_STREAM, 5001));
    close(l);

    out("RTM_NEWLINK lo down: %s", nlerr(link_set_up(1, 0)));
    show_net("lo down again");
    return 0;
}
