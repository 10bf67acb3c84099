/* shutdown(2) on AF_UNIX sockets: SHUT_WR makes own writes EPIPE (with
 * SIGPIPE on streams) and gives the peer end of file after the queued
 * data; SHUT_RD makes own reads end of file and the peer's writes EPIPE;
 * what poll reports after each; shutting down an unconnected socket
 * succeeds; a listener shut for reading refuses connections; datagram
 * sockets shut only themselves; seqpacket sockets behave like streams
 * without SIGPIPE. */
#include "common.h"
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

static volatile int sigpipes;
static void on_pipe(int s) { (void)s; sigpipes++; }

static void show_poll(const char *label, int fd)
{
    struct pollfd p = {fd, POLLIN | POLLOUT | POLLRDHUP, 0};
    int n = poll(&p, 1, 0);
    out("%s: %d%s%s%s%s%s", label, n, p.revents & POLLIN ? " IN" : "", p.revents & POLLOUT ? " OUT" : "",
        p.revents & POLLHUP ? " HUP" : "", p.revents & POLLRDHUP ? " RDHUP" : "", p.revents & POLLERR ? " ERR" : "");
}

static void write_pipe(const char *label, int fd)
{
    sigpipes = 0;
    ssize_t r = write(fd, "x", 1);
    out("%s: %zd %s, SIGPIPEs: %d", label, r, r < 0 ? errname(errno) : "", sigpipes);
}

int main(void)
{
    signal(SIGPIPE, on_pipe);
    char buf[16];
    int sv[2];

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "before", 6);
    check("shutdown(SHUT_WR)", shutdown(sv[0], SHUT_WR));
    write_pipe("write after SHUT_WR", sv[0]);
    show("read queued", read(sv[1], buf, sizeof buf));
    show("then end of file", read(sv[1], buf, sizeof buf));
    show_poll("poll, shut for writing", sv[0]);
    show_poll("poll, peer shut for writing", sv[1]);
    show("peer still writes", write(sv[1], "back", 4));
    show("and is read", read(sv[0], buf, sizeof buf));
    check("shutdown(SHUT_WR) again", shutdown(sv[0], SHUT_WR));
    close(sv[0]);
    close(sv[1]);

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "queued", 6);
    check("shutdown(SHUT_RD)", shutdown(sv[1], SHUT_RD));
    show("read queued data", read(sv[1], buf, sizeof buf));
    show("then end of file", read(sv[1], buf, sizeof buf));
    write_pipe("peer writes", sv[0]);
    show("own writes still work", write(sv[1], "out", 3));
    show("peer reads them", read(sv[0], buf, sizeof buf));
    show_poll("poll, shut for reading", sv[1]);
    show_poll("poll, peer shut for reading", sv[0]);
    close(sv[0]);
    close(sv[1]);

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    check("shutdown(SHUT_RDWR)", shutdown(sv[0], SHUT_RDWR));
    show_poll("poll, shut both ways", sv[0]);
    show_poll("poll, peer shut both ways", sv[1]);
    show("recv", recv(sv[0], buf, sizeof buf, MSG_DONTWAIT));
    sigpipes = 0;
    show("send MSG_NOSIGNAL", send(sv[1], "x", 1, MSG_NOSIGNAL));
    out("SIGPIPEs: %d", sigpipes);
    close(sv[0]);
    close(sv[1]);

    /* Unconnected and listening sockets. */
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    check("shutdown(unconnected)", shutdown(u, SHUT_RDWR));
    show_poll("poll, unconnected and shut", u);
    close(u);
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "\0kevlar-shut"};
    socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 12;
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    bind(l, (struct sockaddr *)&a, alen);
    listen(l, 4);
    int early = socket(AF_UNIX, SOCK_STREAM, 0);
    check("connect before shutdown", connect(early, (struct sockaddr *)&a, alen));
    check("shutdown(listener, SHUT_RD)", shutdown(l, SHUT_RD));
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    show("connect after", connect(c, (struct sockaddr *)&a, alen));
    int s = accept(l, NULL, NULL);
    check("accept the earlier connection", s);
    show("accept4 SOCK_NONBLOCK", accept4(l, NULL, NULL, SOCK_NONBLOCK));
    show("accept", accept(l, NULL, NULL));
    close(l);

    /* Datagram sockets shut only themselves. */
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    check("datagram shutdown(SHUT_WR)", shutdown(sv[0], SHUT_WR));
    write_pipe("datagram write after SHUT_WR", sv[0]);
    show("peer still sends", send(sv[1], "to0", 3, 0));
    show("and is received", recv(sv[0], buf, sizeof buf, 0));
    show_poll("poll, datagram shut for writing", sv[0]);
    show_poll("poll, its peer", sv[1]);
    close(sv[0]);
    close(sv[1]);
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    send(sv[0], "queued", 6, 0);
    check("datagram shutdown(SHUT_RD)", shutdown(sv[1], SHUT_RD));
    write_pipe("peer sends", sv[0]);
    show("queued datagram", recv(sv[1], buf, sizeof buf, 0));
    show("non-blocking recv", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    show("blocking recv", recv(sv[1], buf, sizeof buf, 0));
    show_poll("poll, datagram shut for reading", sv[1]);
    close(sv[0]);
    close(sv[1]);

    /* Seqpacket sockets. */
    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
    send(sv[0], "rec", 3, 0);
    check("seqpacket shutdown(SHUT_WR)", shutdown(sv[0], SHUT_WR));
    write_pipe("seqpacket write after SHUT_WR", sv[0]);
    show("peer reads the record", recv(sv[1], buf, sizeof buf, 0));
    show("then end of file", recv(sv[1], buf, sizeof buf, 0));
    show("non-blocking, end of file", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    show_poll("poll, seqpacket peer shut for writing", sv[1]);
    check("seqpacket shutdown(SHUT_RD)", shutdown(sv[0], SHUT_RD));
    write_pipe("peer writes to it", sv[1]);
    return 0;
}
