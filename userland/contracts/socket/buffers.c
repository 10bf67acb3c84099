/* Buffer limits and blocking on AF_UNIX sockets: a stream fills up (a
 * bounded amount, less with a smaller SO_SNDBUF) and a blocked writer is
 * released by the reader; a megabyte crosses intact in both directions;
 * MSG_WAITALL waits for the whole request unless the peer closes; a
 * non-blocking write into a nearly full buffer is partial; datagram
 * senders block on their send buffer. */
#include "common.h"
#include <sys/socket.h>
#include <sys/uio.h>

static size_t fill(int fd)
{
    static char chunk[4096];
    size_t total = 0;
    for (;;) {
        ssize_t w = send(fd, chunk, sizeof chunk, MSG_DONTWAIT);
        if (w <= 0)
            break;
        total += w;
    }
    return total;
}

static unsigned sum(const unsigned char *p, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++)
        s = s * 31 + p[i];
    return s;
}

int main(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    size_t full = fill(sv[0]);
    out("default buffer: filled %s, under 1 MiB %s", yesno(full > 65536), yesno(full < (1 << 20)));
    show("then EAGAIN", send(sv[0], "x", 1, MSG_DONTWAIT));
    close(sv[0]);
    close(sv[1]);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int small = 16384;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    size_t less = fill(sv[0]);
    out("SO_SNDBUF 16384: filled less %s", yesno(less > 0 && less < full));
    close(sv[0]);
    close(sv[1]);

    /* A megabyte each way, with a blocked writer. */
    size_t mb = 1 << 20;
    unsigned char *data = malloc(mb), *back = malloc(mb);
    for (size_t i = 0; i < mb; i++)
        data[i] = (unsigned char)(i * 7 + (i >> 10));
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid_t pid = fork();
    if (pid == 0) {
        ssize_t w = write(sv[0], data, mb);
        size_t got = 0;
        while (got < mb) {
            ssize_t r = read(sv[0], back + got, mb - got);
            if (r <= 0)
                break;
            got += r;
        }
        _exit(w == (ssize_t)mb && got == mb && sum(back, mb) == sum(data, mb) ? 0 : 1);
    }
    msleep(100);
    ssize_t got = read_full(sv[1], back, mb);
    out("read 1 MiB written at once: %zd, intact %s", got, yesno(got == (ssize_t)mb && memcmp(back, data, mb) == 0));
    size_t put = 0;
    while (put < mb) {
        ssize_t w = write(sv[1], data + put, mb - put);
        if (w <= 0)
            break;
        put += w;
    }
    out("wrote 1 MiB back: %zu", put);
    reap("child (exit 0 if it got it intact)", pid);
    close(sv[0]);
    close(sv[1]);

    /* MSG_WAITALL. */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid = fork();
    if (pid == 0) {
        char piece[1000];
        for (int i = 0; i < 10; i++) {
            memset(piece, 'a' + i, sizeof piece);
            write(sv[0], piece, sizeof piece);
            msleep(20);
        }
        msleep(100);
        write(sv[0], "tail", 4);
        close(sv[0]);
        _exit(0);
    }
    close(sv[0]);
    char buf[20000];
    ssize_t r = recv(sv[1], buf, 10000, MSG_WAITALL);
    out("recv(10000, MSG_WAITALL): %zd, last byte %c", r, r > 0 ? buf[r - 1] : '?');
    r = recv(sv[1], buf, 100, MSG_WAITALL);
    out("recv(100, MSG_WAITALL), peer closes after 4: %zd '%.*s'", r, (int)(r > 0 ? r : 0), buf);
    reap("writer", pid);
    close(sv[1]);

    /* Partial non-blocking writes. */
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv);
    fill(sv[0]);
    read(sv[1], buf, sizeof buf);
    read(sv[1], buf, sizeof buf);
    r = write(sv[0], data, mb);
    out("non-blocking 1 MiB write into a partly drained buffer: partial %s", yesno(r > 0 && r < (ssize_t)mb));
    close(sv[0]);
    close(sv[1]);

    /* Datagram senders block on their own send buffer. */
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    int n = 0;
    while (send(sv[0], data, 20000, MSG_DONTWAIT) == 20000)
        n++;
    out("20000-byte datagrams before EAGAIN: several %s, bounded %s (%s)", yesno(n >= 3), yesno(n < 50), errname(errno));
    pid = fork();
    if (pid == 0) {
        msleep(100);
        char *sink = malloc(20000);
        for (int i = 0; i < n; i++)
            recv(sv[1], sink, 20000, 0);
        _exit(0);
    }
    show("blocking send waits for the reader", send(sv[0], data, 20000, 0));
    reap("reader", pid);
    r = recv(sv[1], back, mb, 0);
    out("the last datagram: %zd intact %s", r, yesno(r == 20000 && memcmp(back, data, 20000) == 0));
    return 0;
}
