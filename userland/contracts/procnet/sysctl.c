/* /proc/sys/net holds each network namespace's settings, as Linux 6.1
 * has them: their defaults in a new namespace (core/somaxconn,
 * ipv4/ip_local_port_range, ping_group_range, tcp_keepalive_*,
 * tcp_fin_timeout, tcp_syncookies, tcp_rmem/wmem (the minimum and
 * default; the maximum is sized by Linux from the memory), ip_forward, the conf
 * directories' rp_filter, accept_source_route and disable_ipv6); what a
 * write takes and refuses (EINVAL); a write in one namespace is not seen
 * in another. The settings are used: ip_local_port_range bounds the
 * ephemeral ports bind chooses, somaxconn caps listen's backlog (of
 * four connections to a listener with backlog 16 under somaxconn 1,
 * backlog + 1 = 2 complete at once, the others wait unanswered), and
 * tcp_keepalive_time is a new socket's TCP_KEEPIDLE. */
#include "procnet.h"
#include <netinet/tcp.h>

static void show_knob(const char *name)
{
    char path[128], buf[128];
    snprintf(path, sizeof path, "/proc/sys/net/%s", name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", name, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '\t')
            *p = ' ';
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    /* tcp_rmem's and tcp_wmem's maximum depends on the memory Linux
     * found at boot: only whether it is above the default is told. */
    long a, b, c;
    if (strstr(name, "mem") && sscanf(buf, "%ld %ld %ld", &a, &b, &c) == 3) {
        out("%s = \"%ld %ld\", third above the second: %s", name, a, b, yesno(c > b));
        return;
    }
    out("%s = \"%s\"", name, buf);
}

static void put(const char *name, const char *value)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/net/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        out("write %s: open %s", name, errname(errno));
        return;
    }
    ssize_t n = write(fd, value, strlen(value));
    out("write %s \"%s\": %s", name, value, n < 0 ? errname(errno) : "ok");
    close(fd);
}

static const char *const names[] = {
    "core/somaxconn", "ipv4/ip_local_port_range", "ipv4/ping_group_range", "ipv4/tcp_keepalive_time", "ipv4/tcp_keepalive_intvl",
    "ipv4/tcp_keepalive_probes", "ipv4/tcp_fin_timeout", "ipv4/tcp_syncookies", "ipv4/tcp_rmem", "ipv4/tcp_wmem", "ipv4/ip_forward",
    "ipv4/ip_default_ttl", "ipv4/conf/all/rp_filter", "ipv4/conf/default/rp_filter", "ipv4/conf/lo/rp_filter", "ipv4/conf/all/accept_source_route",
    "ipv4/conf/default/accept_source_route", "ipv4/conf/lo/accept_source_route", "ipv6/conf/all/disable_ipv6", "ipv6/conf/default/disable_ipv6",
    "ipv6/conf/lo/disable_ipv6", "core/default_qdisc",
};

int main(void)
{
    fresh_net();
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        show_knob(names[i]);
    struct stat st;
    out("somaxconn mode %o", stat("/proc/sys/net/core/somaxconn", &st) == 0 ? st.st_mode & 07777 : 0);
    put("ipv4/ip_local_port_range", "40000 40001");
    show_knob("ipv4/ip_local_port_range");
    put("ipv4/ip_local_port_range", "50000 40000");
    put("ipv4/ip_local_port_range", "0 100");
    put("ipv4/ip_local_port_range", "abc");
    show_knob("ipv4/ip_local_port_range");
    put("ipv4/ping_group_range", "5 2");
    show_knob("ipv4/ping_group_range");
    put("ipv4/ping_group_range", "0 2147483647");
    show_knob("ipv4/ping_group_range");
    put("ipv4/ip_forward", "2");
    put("ipv4/tcp_keepalive_time", "0");
    put("ipv4/tcp_keepalive_time", "600");
    put("ipv4/conf/all/rp_filter", "2");
    show_knob("ipv4/conf/all/rp_filter");

    /* Ephemeral ports from the range. */
    for (int i = 0; i < 3; i++) {
        int s = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        int r = bind(s, (struct sockaddr *)&a, sizeof a);
        socklen_t l = sizeof a;
        getsockname(s, (struct sockaddr *)&a, &l);
        int port = ntohs(a.sin_port);
        out("udp bind port 0 #%d: %s, in range: %s", i, r ? errname(errno) : "ok", r ? "-" : yesno(port >= 40000 && port <= 40001));
        if (i == 2)
            close(s);
    }
    int t = socket(AF_INET, SOCK_STREAM, 0);
    int idle = 0;
    socklen_t il = sizeof idle;
    getsockopt(t, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &il);
    out("new socket's TCP_KEEPIDLE: %d", idle);
    close(t);

    /* somaxconn caps the backlog. */
    put("core/somaxconn", "1");
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4720);
    check("bind 127.0.0.1:4720", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen 16", listen(l, 16));
    put("ipv4/ip_local_port_range", "32768 60999");
    int done = 0;
    for (int i = 0; i < 4; i++) {
        int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        connect(c, (struct sockaddr *)&a, sizeof a);
    }
    usleep(300000);
    fcntl(l, F_SETFL, O_NONBLOCK);
    while (accept(l, NULL, NULL) >= 0)
        done++;
    out("connections accepted at once with somaxconn 1: %d", done);

    /* Another namespace has its own settings. */
    pid_t pid = fork();
    if (pid == 0) {
        check("child unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
        show_knob("core/somaxconn");
        show_knob("ipv4/conf/all/rp_filter");
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    show_knob("core/somaxconn");
    return 0;
}
