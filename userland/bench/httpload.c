/* httpload: the load client of the nginx benchmark (docs/benchmarks.md).
 *
 *     httpload PORT PATH REQUESTS CONNECTIONS
 *
 * Makes REQUESTS `GET PATH HTTP/1.1` requests to 127.0.0.1:PORT over
 * CONNECTIONS keep-alive connections at once (one request outstanding on
 * each, served in turn with poll), reads each response in full (headers
 * and Content-Length bytes) and checks its status is 200. Exits 0 when
 * every request was answered 200; otherwise says why on standard error and
 * exits 1. Bounded: at most REQUESTS requests, and it gives up after
 * 60 s without progress.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
    int fd;
    char buf[16384];
    size_t have;
    int busy;
};

static int fail(const char *what)
{
    fprintf(stderr, "httpload: %s: %s\n", what, strerror(errno));
    return 1;
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port),
                            .sin_addr = {htonl(INADDR_LOOPBACK)}};
    int one = 1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Length of one complete response at the start of c->buf, 0 if incomplete,
 * -1 if it is not a 200 with a Content-Length. */
static long complete(struct conn *c)
{
    c->buf[c->have < sizeof c->buf ? c->have : sizeof c->buf - 1] = 0;
    char *end = strstr(c->buf, "\r\n\r\n");
    if (!end)
        return c->have >= sizeof c->buf - 1 ? -1 : 0;
    if (strncmp(c->buf, "HTTP/1.1 200", 12) != 0)
        return -1;
    char *cl = strcasestr(c->buf, "\r\nContent-Length:");
    if (!cl || cl > end)
        return -1;
    long body = strtol(cl + 17, NULL, 10);
    long total = (end + 4 - c->buf) + body;
    return (size_t)total <= c->have ? total : 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: httpload PORT PATH REQUESTS CONNECTIONS\n");
        return 2;
    }
    int port = atoi(argv[1]);
    const char *path = argv[2];
    long total = atol(argv[3]);
    int nconn = atoi(argv[4]);
    if (nconn < 1 || nconn > 256 || total < 1)
        return 2;
    char req[512];
    int reqlen = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\n"
                          "User-Agent: httpload\r\n\r\n", path);
    struct conn *cs = calloc((size_t)nconn, sizeof *cs);
    struct pollfd *pf = calloc((size_t)nconn, sizeof *pf);
    if (!cs || !pf)
        return fail("calloc");
    for (int i = 0; i < nconn; i++)
        if ((cs[i].fd = dial(port)) < 0)
            return fail("connect");
    long sent = 0, done = 0;
    while (done < total) {
        for (int i = 0; i < nconn; i++) {
            if (!cs[i].busy && sent < total) {
                if (write(cs[i].fd, req, (size_t)reqlen) != reqlen)
                    return fail("write");
                cs[i].busy = 1;
                sent++;
            }
            pf[i].fd = cs[i].busy ? cs[i].fd : -1;
            pf[i].events = POLLIN;
        }
        int k = poll(pf, (nfds_t)nconn, 60000);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return fail("poll");
        if (k == 0) {
            fprintf(stderr, "httpload: no response for 60 s after %ld of %ld\n", done, total);
            return 1;
        }
        for (int i = 0; i < nconn; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            struct conn *c = &cs[i];
            ssize_t r = read(c->fd, c->buf + c->have, sizeof c->buf - 1 - c->have);
            if (r < 0)
                return fail("read");
            if (r == 0) {
                fprintf(stderr, "httpload: server closed a connection after %ld responses\n", done);
                return 1;
            }
            c->have += (size_t)r;
            long len = complete(c);
            if (len < 0) {
                fprintf(stderr, "httpload: bad response: %.60s\n", c->buf);
                return 1;
            }
            if (len > 0) {
                memmove(c->buf, c->buf + len, c->have - (size_t)len);
                c->have -= (size_t)len;
                c->busy = 0;
                done++;
            }
        }
    }
    for (int i = 0; i < nconn; i++)
        close(cs[i].fd);
    return 0;
}
