/* A socket belongs to the network namespace it was made in, for life:
 * the same TCP and UDP port binds in two namespaces without conflict, a
 * listener in one is not reachable from the other (ECONNREFUSED), and a
 * socket made before unshare(CLONE_NEWNET) still reaches the old
 * namespace's listener afterwards. */
#include "netns.h"

int main(void)
{
    lo_up();
    struct sockaddr_in a = loopback(5100);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    check("first namespace: bind tcp 127.0.0.1:5100", bind(l, (struct sockaddr *)&a, sizeof a));
    check("first namespace: listen", listen(l, 4));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    check("first namespace: bind udp 127.0.0.1:5100", bind(u, (struct sockaddr *)&a, sizeof a));
    int old = socket(AF_INET, SOCK_STREAM, 0);
    int olds = socket(AF_INET, SOCK_DGRAM, 0);

    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
        out("RTM_NEWLINK lo up: %s", nlerr(link_set_up(1, 1)));
        out("new namespace: tcp connect 127.0.0.1:5100: %s", try_connect(SOCK_STREAM, 5100));
        int l2 = socket(AF_INET, SOCK_STREAM, 0);
        check("new namespace: bind tcp 127.0.0.1:5100", bind(l2, (struct sockaddr *)&a, sizeof a));
        check("new namespace: listen", listen(l2, 4));
        int u2 = socket(AF_INET, SOCK_DGRAM, 0);
        check("new namespace: bind udp 127.0.0.1:5100", bind(u2, (struct sockaddr *)&a, sizeof a));
        int l3 = socket(AF_INET, SOCK_STREAM, 0);
        check("new namespace: second bind tcp 127.0.0.1:5100", bind(l3, (struct sockaddr *)&a, sizeof a));
        /* The socket made before unshare still lives in the first one. */
        check("old socket: connect 127.0.0.1:5100", connect(old, (struct sockaddr *)&a, sizeof a));
        check("old udp socket: sendto 127.0.0.1:5100", sendto(olds, "old", 3, 0, (struct sockaddr *)&a, sizeof a));
        int c = socket(AF_INET, SOCK_DGRAM, 0);
        check("new udp socket: sendto 127.0.0.1:5100", sendto(c, "new", 3, 0, (struct sockaddr *)&a, sizeof a));
        char buf[16] = {0};
        struct pollfd p = {.fd = u2, .events = POLLIN};
        poll(&p, 1, 2000);
        ssize_t n = recv(u2, buf, sizeof buf, MSG_DONTWAIT);
        out("new namespace: udp received %zd %.*s", n, (int)(n > 0 ? n : 0), buf);
        fcntl(l2, F_SETFL, O_NONBLOCK);
        int s = accept(l2, NULL, NULL);
        out("new namespace: accept: %s", s < 0 ? errname(errno) : "a connection");
        _exit(0);
    }
    reap("child", pid);
    fcntl(l, F_SETFL, O_NONBLOCK);
    int c = accept(l, NULL, NULL);
    out("first namespace: accept: %s", c < 0 ? errname(errno) : "a connection");
    char buf[16] = {0};
    struct pollfd p = {.fd = u, .events = POLLIN};
    poll(&p, 1, 2000);
    ssize_t n = recv(u, buf, sizeof buf, MSG_DONTWAIT);
    out("first namespace: udp received %zd %.*s", n, (int)(n > 0 ? n : 0), buf);
    n = recv(u, buf, sizeof buf, MSG_DONTWAIT);
    out("first namespace: udp next %s", n < 0 ? errname(errno) : "data");
    return 0;
}
