/* A listener with three clients connected before any accept: all three
 * connections complete (backlog), accept hands out each once, and each
 * client's byte arrives on its own connection. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    int ready[2];
    pipe(ready);
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            int c = tcp_connect(port);
            char b = 'a' + i;
            write(c, &b, 1);
            write(ready[1], "x", 1);
            char buf[4];
            /* Wait for the server's close. */
            read(c, buf, sizeof buf);
            _exit(0);
        }
    }
    char x;
    for (int i = 0; i < 3; i++)
        read(ready[0], &x, 1);
    int seen[3] = {0, 0, 0};
    int fds[3];
    for (int i = 0; i < 3; i++) {
        fds[i] = accept(l, NULL, NULL);
        char b = 0;
        if (fds[i] < 0 || read(fds[i], &b, 1) != 1 || b < 'a' || b > 'c')
            out("accept %d: bad", i);
        else
            seen[b - 'a']++;
    }
    out("each client once: %s", yesno(seen[0] == 1 && seen[1] == 1 && seen[2] == 1));
    int fl = fcntl(l, F_GETFL);
    fcntl(l, F_SETFL, fl | O_NONBLOCK);
    show("fourth accept (none pending)", accept(l, NULL, NULL));
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    for (int i = 0; i < 3; i++)
        reap("client", kids[i]);
    return 0;
}
