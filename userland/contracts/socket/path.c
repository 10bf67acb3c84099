/* AF_UNIX sockets bound to filesystem paths: bind makes an S_IFSOCK node
 * (mode 0777 less the umask) that open() refuses; an existing name is
 * EADDRINUSE; a bound socket cannot bind again; connect before listen and
 * to non-sockets is ECONNREFUSED, to a missing path ENOENT, to another
 * socket type EPROTOTYPE; connect follows relative paths, symlinks and
 * renames (it finds the node, not the name); unlink removes the name; a
 * closed socket's node stays, refusing connections, until unlinked. */
#include "common.h"
#include <sys/socket.h>
#include <stddef.h>
#include <sys/un.h>

static socklen_t path_addr(struct sockaddr_un *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    strcpy(a->sun_path, path);
    return sizeof *a;
}

static int sock_bind(int type, const char *path)
{
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, type, 0);
    socklen_t len = path_addr(&a, path);
    if (bind(fd, (struct sockaddr *)&a, len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int sock_connect(int type, const char *path)
{
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, type, 0);
    socklen_t len = path_addr(&a, path);
    if (connect(fd, (struct sockaddr *)&a, len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static void ping(const char *label, int c, int s)
{
    char buf[8] = {0};
    int ok = write(c, "ping", 4) == 4 && read(s, buf, sizeof buf) == 4 && memcmp(buf, "ping", 4) == 0;
    ok = ok && write(s, "pong", 4) == 4 && read(c, buf, sizeof buf) == 4 && memcmp(buf, "pong", 4) == 0;
    out("%s: %s", label, ok ? "data flows" : "broken");
}

int main(void)
{
    int srv = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    socklen_t len = path_addr(&a, "srv.sock");
    check("bind", bind(srv, (struct sockaddr *)&a, len));
    struct stat st;
    check("stat", stat("srv.sock", &st));
    out("node: %s perm %o", ftype(st.st_mode), st.st_mode & 07777);
    show("open the node", open("srv.sock", O_RDONLY));
    path_addr(&a, "other.sock");
    show("bind a bound socket", bind(srv, (struct sockaddr *)&a, sizeof a));
    show("its new node is gone", access("other.sock", F_OK));
    show("bind an existing path", sock_bind(SOCK_STREAM, "srv.sock"));
    put_file("regular", "x");
    show("bind over a regular file", sock_bind(SOCK_DGRAM, "regular"));
    show("bind in a missing directory", sock_bind(SOCK_STREAM, "nodir/s.sock"));
    show("connect before listen", sock_connect(SOCK_STREAM, "srv.sock"));
    check("listen", listen(srv, 5));
    show("connect to a missing path", sock_connect(SOCK_STREAM, "missing.sock"));
    show("connect to a regular file", sock_connect(SOCK_STREAM, "regular"));
    show("connect with another type", sock_connect(SOCK_DGRAM, "srv.sock"));
    show("connect with seqpacket", sock_connect(SOCK_SEQPACKET, "srv.sock"));

    int c = sock_connect(SOCK_STREAM, "srv.sock");
    check("connect", c);
    struct sockaddr_un peer;
    socklen_t plen = sizeof peer;
    memset(&peer, 0x55, sizeof peer);
    int s = accept(srv, (struct sockaddr *)&peer, &plen);
    check("accept", s);
    out("accepted peer address length: %d family: %d", (int)plen, peer.sun_family);
    ping("first connection", c, s);
    close(c);
    close(s);

    /* Relative to the working directory, through a symlink. */
    mkdir("sub", 0755);
    chdir("sub");
    c = sock_connect(SOCK_STREAM, "../srv.sock");
    check("connect ../srv.sock", c);
    s = accept(srv, NULL, NULL);
    ping("relative path", c, s);
    close(c);
    close(s);
    chdir("..");
    symlink("srv.sock", "link.sock");
    c = sock_connect(SOCK_STREAM, "link.sock");
    check("connect through a symlink", c);
    s = accept(srv, NULL, NULL);
    ping("symlink", c, s);
    close(c);
    close(s);

    /* The node, not the name. */
    check("rename", rename("srv.sock", "moved.sock"));
    show("connect to the old name", sock_connect(SOCK_STREAM, "srv.sock"));
    c = sock_connect(SOCK_STREAM, "moved.sock");
    check("connect to the new name", c);
    s = accept(srv, NULL, NULL);
    ping("renamed", c, s);
    struct sockaddr_un name;
    socklen_t nlen = sizeof name;
    getsockname(srv, (struct sockaddr *)&name, &nlen);
    out("listener's name is still: %s (%d)", name.sun_path, (int)nlen);
    close(c);
    close(s);
    check("unlink", unlink("moved.sock"));
    show("connect after unlink", sock_connect(SOCK_STREAM, "moved.sock"));
    show("bind the freed path", (srv = sock_bind(SOCK_STREAM, "moved.sock")) >= 0 ? 0 : -1);
    close(srv);

    /* A closed socket's node. */
    int gone = sock_bind(SOCK_STREAM, "gone.sock");
    listen(gone, 1);
    close(gone);
    check("node of a closed socket", stat("gone.sock", &st));
    show("connect to it", sock_connect(SOCK_STREAM, "gone.sock"));
    show("bind it again", sock_bind(SOCK_STREAM, "gone.sock"));
    unlink("gone.sock");
    int again = sock_bind(SOCK_STREAM, "gone.sock");
    check("bind after unlink", again);
    close(again);
    check("mknod a socket node", mknod("made.sock", S_IFSOCK | 0644, 0));
    show("connect to it", sock_connect(SOCK_STREAM, "made.sock"));

    /* A path of exactly 108 bytes has no room for the NUL: still valid. */
    char longname[109];
    memset(longname, 'L', 108);
    longname[108] = 0;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path, longname, 108);
    int lf = socket(AF_UNIX, SOCK_STREAM, 0);
    show("bind a 108-byte path", bind(lf, (struct sockaddr *)&a, sizeof a));
    nlen = sizeof name + 10;
    char big[sizeof name + 10];
    getsockname(lf, (struct sockaddr *)big, &nlen);
    out("its name length: %d", (int)nlen);
    show("stat it", stat(longname, &st));

    /* The address length bounds the path. */
    int sh = socket(AF_UNIX, SOCK_STREAM, 0);
    path_addr(&a, "abcdef");
    show("bind with length cutting the path", bind(sh, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) + 3));
    show("node abc exists", access("abc", F_OK));
    nlen = sizeof name;
    getsockname(sh, (struct sockaddr *)&name, &nlen);
    out("name: %s length %d", name.sun_path, (int)nlen);
    return 0;
}
