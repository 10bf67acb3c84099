/* /proc/net/tcp lists a namespace's TCP sockets that listen or have a
 * peer, as tcp4_seq_show prints them: the header and every line padded
 * to 149 characters, addresses as the __be32 in %08X (127.0.0.1 is
 * 0100007F) with the port in %04X, the state (0A LISTEN, 01
 * ESTABLISHED), the owner's uid and the inode of the socket's file. A
 * socket that is only bound is not listed; rx_queue is the bytes not yet
 * read. */
#include "procnet.h"

int main(void)
{
    fresh_net();
    int bound = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in b = loopback(4660);
    check("bind 127.0.0.1:4660 (no listen)", bind(bound, (struct sockaddr *)&b, sizeof b));
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4661);
    check("bind 127.0.0.1:4661", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 8));
    int fds0[2] = {l, bound};
    const char *names0[2] = {"listener", "bound"};
    inet_file("/proc/net/tcp", fds0, names0, 2, 1);

    int c = socket(AF_INET, SOCK_STREAM, 0);
    check("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    int s = accept(l, NULL, NULL);
    out("accept: %s", s >= 0 ? "ok" : errname(errno));
    check("send 5 bytes", send(c, "hello", 5, 0) == 5 ? 0 : -1);
    usleep(100000);
    /* The client's port is ephemeral: it shows as the accepted one's
     * remote port. */
    struct sockaddr_in ca;
    socklen_t cl = sizeof ca;
    getsockname(c, (struct sockaddr *)&ca, &cl);
    char want[16];
    snprintf(want, sizeof want, "0100007F:%04X", ntohs(ca.sin_port));
    int fds[4] = {l, c, s, bound};
    const char *names[4] = {"listener", "client", "accepted", "bound"};
    inet_file("/proc/net/tcp", fds, names, 4, 1);
    if (slurp("/proc/net/tcp") > 0)
        out("client's address:port appears twice (local, remote): %s", yesno(strstr(text, want) && strstr(strstr(text, want) + 1, want)));
    inet_file("/proc/net/tcp6", fds, names, 4, 0);
    close(c);
    close(s);
    close(l);
    return 0;
}
