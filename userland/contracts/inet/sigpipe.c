/* Writing to a TCP connection that cannot send: after our own SHUT_WR
 * EPIPE with SIGPIPE (none with MSG_NOSIGNAL); after the peer closed,
 * the first write is taken, the peer's reset makes the next EPIPE; a
 * send on a socket never connected is EPIPE too. */
#include "inet.h"

static volatile int pipes;
static void on_pipe(int sig) { (void)sig; pipes++; }

int main(void)
{
    lo_up();
    signal(SIGPIPE, on_pipe);
    int port = 0;
    int l = tcp_listener(&port);
    int c = tcp_connect(port);
    int s = accept(l, NULL, NULL);
    shutdown(c, SHUT_WR);
    show("write after SHUT_WR", write(c, "x", 1));
    out("SIGPIPE count %d", pipes);
    show("send MSG_NOSIGNAL", send(c, "x", 1, MSG_NOSIGNAL));
    out("SIGPIPE count %d", pipes);
    close(c);
    close(s);

    c = tcp_connect(port);
    s = accept(l, NULL, NULL);
    close(s);
    msleep(50);
    show("first write after peer closed", write(c, "abc", 3));
    msleep(100);
    show("second write", write(c, "abc", 3));
    out("SIGPIPE count %d", pipes);
    char buf[8];
    show("read", read(c, buf, sizeof buf));
    close(c);

    int u = socket(AF_INET, SOCK_STREAM, 0);
    show("send unconnected", send(u, "x", 1, 0));
    out("SIGPIPE count %d", pipes);
    show("recv unconnected", recv(u, buf, 1, 0));
    signal(SIGPIPE, SIG_DFL);
    pid_t pid = fork();
    if (pid == 0) {
        write(u, "x", 1);
        _exit(0);
    }
    reap("default SIGPIPE", pid);
    return 0;
}
