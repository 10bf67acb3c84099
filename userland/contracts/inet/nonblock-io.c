/* Non-blocking TCP I/O: EAGAIN from recv, accept and MSG_DONTWAIT; a
 * writer filling the buffers gets EAGAIN after a partial count, and poll
 * shows POLLOUT again once the reader drained; accept4 sets O_NONBLOCK
 * and FD_CLOEXEC on the new fd; MSG_PEEK, MSG_WAITALL and FIONREAD. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    fcntl(l, F_SETFL, O_NONBLOCK);
    show("accept with none pending", accept(l, NULL, NULL));
    int c = tcp_connect(port);
    msleep(20);
    int s = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    check("accept4", s);
    out("O_NONBLOCK: %s, FD_CLOEXEC: %s", yesno(fcntl(s, F_GETFL) & O_NONBLOCK), yesno(fcntl(s, F_GETFD) & FD_CLOEXEC));
    char buf[64];
    show("recv on empty", recv(s, buf, sizeof buf, 0));
    show("MSG_DONTWAIT on blocking socket", recv(c, buf, sizeof buf, MSG_DONTWAIT));
    write(c, "peekaboo", 8);
    msleep(20);
    int avail = -1;
    ioctl(s, FIONREAD, &avail);
    out("FIONREAD: %d", avail);
    ssize_t n = recv(s, buf, 4, MSG_PEEK);
    out("peek %zd: %.*s", n, (int)n, buf);
    n = recv(s, buf, sizeof buf, 0);
    out("read %zd: %.*s", n, (int)n, buf);

    /* Fill: the writer's socket is non-blocking, nobody reads. */
    fcntl(c, F_SETFL, O_NONBLOCK);
    static char big[1 << 16];
    long total = 0;
    int eagain = 0;
    for (int i = 0; i < 10000; i++) {
        ssize_t w = write(c, big, sizeof big);
        if (w < 0) {
            eagain = errno == EAGAIN;
            break;
        }
        total += w;
    }
    out("filled, then EAGAIN: %s, wrote something: %s", yesno(eagain), yesno(total > 0));
    out("poll writer full: OUT %s", yesno(poll_one(c, POLLOUT, 0) & POLLOUT));
    long got = 0;
    for (;;) {
        ssize_t r = read(s, big, sizeof big);
        if (r <= 0)
            break;
        got += r;
    }
    out("reader got everything: %s", yesno(got == total));
    out("poll writer drained: OUT %s", yesno(poll_one(c, POLLOUT, 2000) & POLLOUT));

    fcntl(s, F_SETFL, 0);
    pid_t pid = fork();
    if (pid == 0) {
        write(c, "part1-", 6);
        msleep(50);
        write(c, "part2", 5);
        _exit(0);
    }
    n = recv(s, buf, 11, MSG_WAITALL);
    out("MSG_WAITALL %zd: %.*s", n, (int)n, buf);
    reap("writer", pid);
    return 0;
}
