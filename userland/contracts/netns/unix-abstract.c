/* Abstract unix socket names are per network namespace (the one the
 * socket was made in); path names are not: after unshare(CLONE_NEWNET)
 * a new socket cannot reach the first namespace's abstract listener
 * (ECONNREFUSED) and may bind its name again, while a path socket is
 * still reachable, and a socket made before the unshare still reaches
 * the abstract one. */
#include "../common.h"
#include <sched.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stddef.h>

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    strcpy(a->sun_path + 1, name);
    return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
}

static const char *try_connect(struct sockaddr_un *a, socklen_t len)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    int r = connect(s, (struct sockaddr *)a, len);
    int e = errno;
    close(s);
    return r == 0 ? "0" : errname(e);
}

int main(void)
{
    struct sockaddr_un ab, pa = {.sun_family = AF_UNIX};
    socklen_t ablen = abstract(&ab, "kevlar-netns-abstract");
    strcpy(pa.sun_path, "netns-path.sock");
    unlink(pa.sun_path);
    int la = socket(AF_UNIX, SOCK_STREAM, 0);
    check("bind abstract", bind(la, (struct sockaddr *)&ab, ablen));
    check("listen abstract", listen(la, 4));
    int lp = socket(AF_UNIX, SOCK_STREAM, 0);
    check("bind path", bind(lp, (struct sockaddr *)&pa, sizeof pa));
    check("listen path", listen(lp, 4));
    int d = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un dg;
    socklen_t dglen = abstract(&dg, "kevlar-netns-dgram");
    check("bind abstract dgram", bind(d, (struct sockaddr *)&dg, dglen));
    int old = socket(AF_UNIX, SOCK_STREAM, 0);
    out("same namespace: connect abstract: %s", try_connect(&ab, ablen));

    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
        out("new namespace: connect abstract: %s", try_connect(&ab, ablen));
        out("new namespace: connect path: %s", try_connect(&pa, sizeof pa));
        int s = socket(AF_UNIX, SOCK_DGRAM, 0);
        long r = sendto(s, "x", 1, 0, (struct sockaddr *)&dg, dglen);
        out("new namespace: sendto abstract dgram: %s", r < 0 ? errname(errno) : "0");
        check("old socket: connect abstract", connect(old, (struct sockaddr *)&ab, ablen));
        int l2 = socket(AF_UNIX, SOCK_STREAM, 0);
        check("new namespace: bind the same abstract name", bind(l2, (struct sockaddr *)&ab, ablen));
        check("new namespace: listen", listen(l2, 4));
        out("new namespace: connect abstract: %s", try_connect(&ab, ablen));
        int l3 = socket(AF_UNIX, SOCK_STREAM, 0);
        check("new namespace: bind it a second time", bind(l3, (struct sockaddr *)&ab, ablen));
        _exit(0);
    }
    reap("child", pid);
    int n = 0;
    int fl = fcntl(la, F_GETFL);
    fcntl(la, F_SETFL, fl | O_NONBLOCK);
    while (accept(la, NULL, NULL) >= 0)
        n++;
    out("first namespace: abstract listener accepted %d", n);
    unlink(pa.sun_path);
    return 0;
}
