/* Shared by the AF_INET tests: bringing lo up (Linux boots with it down;
 * Kevlar's is up from boot, and both accept SIOCSIFFLAGS), loopback
 * addresses, and listening/connecting on 127.0.0.1. Ports are always
 * ephemeral (bind to port 0, then getsockname), never printed. */
#ifndef CONTRACTS_INET_H
#define CONTRACTS_INET_H
#include "common.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static void lo_up(void) __attribute__((unused));
static void lo_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
        out("lo_up: SIOCGIFFLAGS: %s", errname(errno));
    if (!(r.ifr_flags & IFF_UP)) {
        r.ifr_flags |= IFF_UP;
        if (ioctl(s, SIOCSIFFLAGS, &r) < 0)
            out("lo_up: SIOCSIFFLAGS: %s", errname(errno));
    }
    close(s);
}

static struct sockaddr_in lo_addr(int port) __attribute__((unused));
static struct sockaddr_in lo_addr(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* The local port of a socket. */
static int port_of(int fd) __attribute__((unused));
static int port_of(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        return -1;
    return ntohs(a.sin_port);
}

/* A socket of `type` bound to 127.0.0.1 on an ephemeral port. */
static int bound_socket(int type, int *port) __attribute__((unused));
static int bound_socket(int type, int *port)
{
    *port = 0;
    int fd = socket(AF_INET, type, 0);
    struct sockaddr_in a = lo_addr(0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        out("bound_socket: %s", errname(errno));
        return -1;
    }
    *port = port_of(fd);
    return fd;
}

/* A TCP listener on 127.0.0.1 (backlog 8); its port in *port. */
static int tcp_listener(int *port) __attribute__((unused));
static int tcp_listener(int *port)
{
    int fd = bound_socket(SOCK_STREAM, port);
    if (fd >= 0 && listen(fd, 8) < 0)
        out("listen: %s", errname(errno));
    return fd;
}

/* A TCP connection to 127.0.0.1:port (blocking connect). */
static int tcp_connect(int port) __attribute__((unused));
static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = lo_addr(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        out("tcp_connect: %s", errname(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Short revents names for the bits the tests look at. */
static const char *pollbits(int ev) __attribute__((unused));
static const char *pollbits(int ev)
{
    static char buf[96];
    buf[0] = 0;
    if (ev & POLLIN) strcat(buf, "IN ");
    if (ev & POLLOUT) strcat(buf, "OUT ");
    if (ev & POLLERR) strcat(buf, "ERR ");
    if (ev & POLLHUP) strcat(buf, "HUP ");
    if (ev & POLLRDHUP) strcat(buf, "RDHUP ");
    if (ev & POLLNVAL) strcat(buf, "NVAL ");
    if (!buf[0]) strcpy(buf, "none ");
    buf[strlen(buf) - 1] = 0;
    return buf;
}

static int poll_one(int fd, int events, int timeout_ms) __attribute__((unused));
static int poll_one(int fd, int events, int timeout_ms)
{
    struct pollfd p = {fd, (short)events, 0};
    int r = poll(&p, 1, timeout_ms);
    return r < 0 ? -1 : p.revents;
}
#endif
