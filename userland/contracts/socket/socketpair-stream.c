/* socketpair(AF_UNIX, SOCK_STREAM): bytes flow both ways in order and
 * join across writes; the fd is a socket to fstat, fcntl and lseek;
 * FIONREAD counts unread bytes; MSG_PEEK and MSG_DONTWAIT; a closed peer
 * gives end of file to reads and EPIPE with SIGPIPE to writes (no signal
 * with MSG_NOSIGNAL); a peer that closed with unread data gives
 * ECONNRESET once, then end of file. */
#include "common.h"
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

static volatile int caught;
static void on_pipe(int s) { caught = s; }

static void show_read(const char *label, ssize_t r, const char *buf)
{
    if (r < 0)
        out("%s: -1 %s", label, errname(errno));
    else
        out("%s: %zd '%.*s'", label, r, (int)r, buf);
}

int main(void)
{
    int sv[2];
    char buf[64];
    check("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    struct stat st;
    check("fstat", fstat(sv[0], &st));
    out("type: %s perm: %o size: %lld", ftype(st.st_mode), st.st_mode & 07777, (long long)st.st_size);
    out("accmode is O_RDWR: %s", yesno((fcntl(sv[0], F_GETFL) & O_ACCMODE) == O_RDWR));
    out("FD_CLOEXEC: %d", fcntl(sv[0], F_GETFD));
    show("lseek", lseek(sv[0], 0, SEEK_SET));
    show("pread", pread(sv[1], buf, 1, 0));

    show("write hello", write(sv[0], "hello", 5));
    show("write world", write(sv[0], " world", 6));
    int n = -1;
    check("FIONREAD", ioctl(sv[1], FIONREAD, &n));
    out("unread: %d", n);
    show_read("read 3", read(sv[1], buf, 3), buf);
    show_read("read rest", read(sv[1], buf, sizeof buf), buf);
    show("write back", write(sv[1], "xyz", 3));
    show_read("read back", read(sv[0], buf, sizeof buf), buf);

    struct iovec wv[2] = {{"ab", 2}, {"cdef", 4}};
    show("writev", writev(sv[0], wv, 2));
    char r1[1], r2[10];
    struct iovec rv[2] = {{r1, 1}, {r2, sizeof r2}};
    ssize_t got = readv(sv[1], rv, 2);
    out("readv: %zd '%c' '%.*s'", got, r1[0], (int)(got - 1), r2);

    show("send peek", send(sv[0], "peek", 4, 0));
    show_read("recv MSG_PEEK", recv(sv[1], buf, sizeof buf, MSG_PEEK), buf);
    show_read("recv 2", recv(sv[1], buf, 2, 0), buf);
    show_read("recv MSG_PEEK again", recv(sv[1], buf, sizeof buf, MSG_PEEK), buf);
    show_read("recv", recv(sv[1], buf, sizeof buf, 0), buf);
    show("recv empty MSG_DONTWAIT", recv(sv[1], buf, 1, MSG_DONTWAIT));
    show("read 0 bytes", read(sv[1], buf, 0));

    /* The writer closes: queued data, then end of file. */
    show("write last", write(sv[0], "last", 4));
    check("close writer", close(sv[0]));
    show_read("read queued", read(sv[1], buf, sizeof buf), buf);
    show("read at end", read(sv[1], buf, sizeof buf));
    show("read at end again", read(sv[1], buf, sizeof buf));
    signal(SIGPIPE, on_pipe);
    show("write to closed peer", write(sv[1], "x", 1));
    out("signal: %s", signame(caught));
    caught = 0;
    show("send MSG_NOSIGNAL", send(sv[1], "x", 1, MSG_NOSIGNAL));
    out("signal: %s", signame(caught));
    close(sv[1]);

    /* Closing with unread data resets the connection. */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    show("write unread", write(sv[1], "unread", 6));
    close(sv[0]);
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(sv[1], SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR: %s", errname(err));
    err = -1;
    getsockopt(sv[1], SOL_SOCKET, SO_ERROR, &err, &len);
    out("SO_ERROR again: %s", errname(err));
    close(sv[1]);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[1], "unread", 6);
    close(sv[0]);
    show("read after reset", read(sv[1], buf, sizeof buf));
    show("read after reset again", read(sv[1], buf, sizeof buf));
    close(sv[1]);

    /* SIGPIPE's default action kills the writer. */
    signal(SIGPIPE, SIG_DFL);
    pid_t pid = fork();
    if (pid == 0) {
        int p[2];
        socketpair(AF_UNIX, SOCK_STREAM, 0, p);
        close(p[1]);
        write(p[0], "x", 1);
        _exit(0);
    }
    reap("writer to a closed socket", pid);
    return 0;
}
