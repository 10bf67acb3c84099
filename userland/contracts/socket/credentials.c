/* Credentials on AF_UNIX sockets: SO_PEERCRED is the creator's for a
 * socketpair, the listener's (at listen time) for a connecting socket and
 * the connector's for an accepted one, nothing (pid 0, ids -1) when
 * unconnected; with SO_PASSCRED the receiver gets SCM_CREDENTIALS on
 * every message: the sender's, or what it claimed and was allowed to
 * claim (EPERM, ESRCH, EINVAL otherwise); stream reads do not join data
 * from different senders then. */
#include "common.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

static struct ucred peercred(int fd, socklen_t *len)
{
    struct ucred c;
    memset(&c, 0x55, sizeof c);
    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, len);
    return c;
}

static int send_creds(int fd, const char *data, const struct ucred *cred, size_t cmsg_len)
{
    char ctl[CMSG_SPACE(sizeof(struct ucred))];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = {(void *)data, strlen(data)};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (cred) {
        mh.msg_control = ctl;
        mh.msg_controllen = sizeof ctl;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_CREDENTIALS;
        c->cmsg_len = cmsg_len;
        memcpy(CMSG_DATA(c), cred, sizeof *cred);
    }
    return sendmsg(fd, &mh, 0);
}

/* Receives one message and prints its data and credentials. */
static void recv_creds(const char *label, int fd, size_t ctl_len, pid_t expect_pid)
{
    char buf[32], ctl[64];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl;
    mh.msg_controllen = ctl_len;
    ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT);
    if (r < 0) {
        out("%s: -1 %s", label, errname(errno));
        return;
    }
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (!c) {
        out("%s: '%.*s' no credentials, MSG_CTRUNC %s", label, (int)r, buf, yesno(mh.msg_flags & MSG_CTRUNC));
        return;
    }
    struct ucred u;
    memset(&u, 0, sizeof u);
    memcpy(&u, CMSG_DATA(c), c->cmsg_len > CMSG_LEN(0) ? c->cmsg_len - CMSG_LEN(0) : 0);
    out("%s: '%.*s' SCM_CREDENTIALS %s len %d controllen %d MSG_CTRUNC %s pid %s uid %d gid %d", label, (int)r, buf,
        yesno(c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS), (int)c->cmsg_len,
        (int)mh.msg_controllen, yesno(mh.msg_flags & MSG_CTRUNC),
        u.pid == expect_pid ? "as expected" : u.pid == 0 ? "0" : "other", (int)u.uid, (int)u.gid);
}

int main(void)
{
    int sv[2], on = 1;
    socklen_t len = sizeof(struct ucred);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    struct ucred c = peercred(sv[0], &len);
    out("socketpair SO_PEERCRED: len %d pid is ours %s uid %d gid %d", (int)len, yesno(c.pid == getpid()), (int)c.uid, (int)c.gid);
    len = 4;
    c = peercred(sv[1], &len);
    out("with a 4-byte buffer: len %d pid is ours %s uid untouched %s", (int)len, yesno(c.pid == getpid()), yesno(c.uid == 0x55555555));
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    len = sizeof c;
    c = peercred(u, &len);
    out("unconnected: pid %d uid %d gid %d", c.pid, (int)c.uid, (int)c.gid);
    int passcred = -1;
    len = sizeof passcred;
    getsockopt(u, SOL_SOCKET, SO_PASSCRED, &passcred, &len);
    out("SO_PASSCRED default: %d", passcred);

    /* Listener, connector, accepted socket. */
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "\0kevlar-cred"};
    socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 12;
    bind(u, (struct sockaddr *)&a, alen);
    listen(u, 2);
    len = sizeof c;
    c = peercred(u, &len);
    out("listener: pid is ours %s uid %d", yesno(c.pid == getpid()), (int)c.uid);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setresgid(1000, 1000, 1000);
        setresuid(1000, 1000, 1000);
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        connect(s, (struct sockaddr *)&a, alen);
        socklen_t l = sizeof(struct ucred);
        struct ucred k = peercred(s, &l);
        out("connector sees: pid is the listener's %s uid %d gid %d", yesno(k.pid == parent), (int)k.uid, (int)k.gid);
        /* What an unprivileged sender may claim. */
        int d[2];
        socketpair(AF_UNIX, SOCK_DGRAM, 0, d);
        struct ucred mine = {getpid(), 1000, 1000};
        show("claim own ids", send_creds(d[0], "m", &mine, CMSG_LEN(sizeof mine)));
        struct ucred root = {getpid(), 0, 1000};
        show("claim uid 0", send_creds(d[0], "r", &root, CMSG_LEN(sizeof root)));
        struct ucred other = {parent, 1000, 1000};
        show("claim another pid", send_creds(d[0], "o", &other, CMSG_LEN(sizeof other)));
        _exit(0);
    }
    reap("connector", pid);
    int s = accept(u, NULL, NULL);
    len = sizeof c;
    c = peercred(s, &len);
    out("accepted socket: pid is the child's %s uid %d gid %d", yesno(c.pid == pid), (int)c.uid, (int)c.gid);

    /* SCM_CREDENTIALS. */
    int d[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, d);
    send(d[0], "early", 5, 0);
    check("SO_PASSCRED on", setsockopt(d[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on));
    len = sizeof passcred;
    getsockopt(d[1], SOL_SOCKET, SO_PASSCRED, &passcred, &len);
    out("SO_PASSCRED: %d", passcred);
    recv_creds("queued before SO_PASSCRED", d[1], 64, getpid());
    send(d[0], "plain", 5, 0);
    recv_creds("plain send", d[1], 64, getpid());
    struct ucred claim = {getpid(), 1234, 5678};
    show("claim other ids as root", send_creds(d[0], "claimed", &claim, CMSG_LEN(sizeof claim)));
    recv_creds("claimed", d[1], 64, getpid());
    send(d[0], "short", 5, 0);
    recv_creds("16-byte control buffer", d[1], 16, getpid());
    send(d[0], "short", 5, 0);
    recv_creds("24-byte control buffer", d[1], 24, getpid());
    send(d[0], "none", 4, 0);
    recv_creds("no control buffer", d[1], 0, getpid());
    struct ucred bad = {getpid(), (uid_t)-1, 0};
    show("claim uid -1", send_creds(d[0], "b", &bad, CMSG_LEN(sizeof bad)));
    struct ucred gone = {99999, 0, 0};
    show("claim a missing pid", send_creds(d[0], "g", &gone, CMSG_LEN(sizeof gone)));
    show("wrong cmsg_len", send_creds(d[0], "w", &claim, CMSG_LEN(8)));
    /* The receiver alone asks; a sender with SO_PASSCRED only attaches. */
    int e[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, e);
    setsockopt(e[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    send(e[0], "x", 1, 0);
    recv_creds("receiver without SO_PASSCRED", e[1], 64, getpid());

    /* Streams: data from different senders is not joined. */
    int t[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, t);
    setsockopt(t[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    write(t[0], "aa", 2);
    write(t[0], "AA", 2);
    pid = fork();
    if (pid == 0) {
        write(t[0], "bb", 2);
        _exit(0);
    }
    reap("second writer", pid);
    recv_creds("first stream read", t[1], 64, getpid());
    recv_creds("second stream read", t[1], 64, pid);
    int w[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, w);
    write(w[0], "aa", 2);
    pid = fork();
    if (pid == 0) {
        write(w[0], "bb", 2);
        _exit(0);
    }
    reap("second writer", pid);
    char buf[16];
    ssize_t r = read(w[1], buf, sizeof buf);
    out("without SO_PASSCRED: '%.*s'", (int)r, buf);
    return 0;
}
