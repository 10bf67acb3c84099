/* Shared by the AF_INET6 tests: lo brought up (as inet.h does), ::1 and
 * `::` socket addresses, and addresses printed with inet_ntop. Ports are
 * ephemeral, never printed. */
#ifndef CONTRACTS_INET6_H
#define CONTRACTS_INET6_H
#include "../inet/inet.h"

static struct sockaddr_in6 addr6(const char *text, int port) __attribute__((unused));
static struct sockaddr_in6 addr6(const char *text, int port)
{
    struct sockaddr_in6 a;
    memset(&a, 0, sizeof a);
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    inet_pton(AF_INET6, text, &a.sin6_addr);
    return a;
}

/* "family addr scope len" of a socket address as getsockname gives it. */
static const char *show6(const struct sockaddr_in6 *a, socklen_t len) __attribute__((unused));
static const char *show6(const struct sockaddr_in6 *a, socklen_t len)
{
    static char buf[128];
    char text[64] = "?";
    if (a->sin6_family == AF_INET6) {
        inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
        snprintf(buf, sizeof buf, "AF_INET6 %s scope %u flowinfo %u len %d", text, a->sin6_scope_id, a->sin6_flowinfo, (int)len);
    } else if (a->sin6_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)a;
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        snprintf(buf, sizeof buf, "AF_INET %s len %d", text, (int)len);
    } else {
        snprintf(buf, sizeof buf, "family %d len %d", a->sin6_family, (int)len);
    }
    return buf;
}

static int port6_of(int fd) __attribute__((unused));
static int port6_of(int fd)
{
    struct sockaddr_in6 a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        return -1;
    return ntohs(a.sin6_port);
}

/* A socket of `family`/`type` bound to `text` on an ephemeral port. */
static int bound6(int type, const char *text, int *port) __attribute__((unused));
static int bound6(int type, const char *text, int *port)
{
    *port = 0;
    int fd = socket(AF_INET6, type, 0);
    struct sockaddr_in6 a = addr6(text, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        out("bound6 %s: %s", text, errname(errno));
        return -1;
    }
    *port = port6_of(fd);
    return fd;
}
#endif
