/* SCM_RIGHTS: open files travel over AF_UNIX sockets and arrive as new
 * fds of the receiver, sharing the open file (a pipe end keeps working,
 * a file shares its offset). The control buffer bounds what is received
 * (MSG_CTRUNC; files that do not fit are closed); MSG_CMSG_CLOEXEC; a
 * read without a control buffer closes them; on a stream, a read ends
 * with the message that carried files; MSG_PEEK gives copies; datagrams
 * and a process boundary; malformed control messages. */
#include "common.h"
#include <sys/socket.h>
#include <sys/uio.h>

static int send_fds(int sock, const char *data, const int *fds, int n)
{
    char ctl[CMSG_SPACE(sizeof(int) * 8)];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = {(void *)data, strlen(data)};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (n > 0) {
        mh.msg_control = ctl;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * n);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
    }
    return sendmsg(sock, &mh, 0);
}

/* Receives into buf; returns the data length and fills fds (count in *n). */
static ssize_t recv_fds(int sock, char *buf, size_t len, int *fds, int *n, size_t ctl_len, int flags, int *msg_flags)
{
    char ctl[256];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = {buf, len};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl_len ? ctl : NULL;
    mh.msg_controllen = ctl_len;
    ssize_t r = recvmsg(sock, &mh, flags);
    *n = 0;
    if (r < 0)
        return r;
    if (msg_flags)
        *msg_flags = mh.msg_flags;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            memcpy(fds + *n, CMSG_DATA(c), k * sizeof(int));
            *n += k;
        }
    }
    return r;
}

/* Raw: musl copies the control data itself and refuses large buffers. */
static long send_raw_control(int sock, const void *ctl, size_t len)
{
    struct iovec iov = {"x", 1};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = (void *)ctl;
    mh.msg_controllen = len;
    return rawsys(SYS_sendmsg, sock, (long)&mh, 0, 0, 0, 0);
}

int main(void)
{
    int sv[2], p[2], fds[8], n, mf;
    char buf[64];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pipe(p);

    /* A pipe's read end. */
    show("sendmsg with a pipe's read end", send_fds(sv[0], "F", &p[0], 1));
    close(p[0]);
    char ctl[256];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl;
    mh.msg_controllen = sizeof ctl;
    show("recvmsg", recvmsg(sv[1], &mh, 0));
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    out("msg_controllen: %d msg_flags: %d", (int)mh.msg_controllen, mh.msg_flags);
    out("cmsg: level SOL_SOCKET %s, type SCM_RIGHTS %s, len %d", yesno(c->cmsg_level == SOL_SOCKET),
        yesno(c->cmsg_type == SCM_RIGHTS), (int)c->cmsg_len);
    out("one message: %s", yesno(CMSG_NXTHDR(&mh, c) == NULL));
    int got;
    memcpy(&got, CMSG_DATA(c), sizeof got);
    struct stat st;
    fstat(got, &st);
    out("received: %s, FD_CLOEXEC %d", ftype(st.st_mode), fcntl(got, F_GETFD));
    write(p[1], "through", 7);
    show("read through the received fd", read(got, buf, sizeof buf));
    close(got);

    /* MSG_CMSG_CLOEXEC. */
    pipe(p);
    send_fds(sv[0], "C", &p[1], 1);
    recv_fds(sv[1], buf, sizeof buf, fds, &n, 64, MSG_CMSG_CLOEXEC, &mf);
    out("MSG_CMSG_CLOEXEC: %d fd(s), FD_CLOEXEC %d, msg_flags has MSG_CMSG_CLOEXEC: %s", n, fcntl(fds[0], F_GETFD),
        yesno(mf & MSG_CMSG_CLOEXEC));
    close(fds[0]);

    /* Three files, room for one: the others are closed. */
    int q[3][2];
    for (int i = 0; i < 3; i++)
        pipe(q[i]);
    int ends[3] = {q[0][1], q[1][1], q[2][1]};
    show("send three write ends", send_fds(sv[0], "3", ends, 3));
    for (int i = 0; i < 3; i++)
        close(q[i][1]);
    recv_fds(sv[1], buf, sizeof buf, fds, &n, CMSG_LEN(sizeof(int)), 0, &mf);
    out("room for one: %d fd(s), MSG_CTRUNC: %s", n, yesno(mf & MSG_CTRUNC));
    write(fds[0], "k", 1);
    show("first pipe gets data", read(q[0][0], buf, 1));
    for (int i = 0; i < n; i++)
        close(fds[i]);
    show("first pipe then at end", read(q[0][0], buf, 1));
    show("second pipe at end (writer dropped)", read(q[1][0], buf, 1));
    show("third pipe at end", read(q[2][0], buf, 1));

    /* Control buffer too small for a header. */
    pipe(p);
    send_fds(sv[0], "s", &p[1], 1);
    close(p[1]);
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl;
    mh.msg_controllen = 8;
    show("recvmsg with 8 bytes of control", recvmsg(sv[1], &mh, 0));
    out("msg_controllen: %d MSG_CTRUNC: %s", (int)mh.msg_controllen, yesno(mh.msg_flags & MSG_CTRUNC));
    show("pipe at end", read(p[0], buf, 1));
    close(p[0]);

    /* read() has no control buffer. */
    pipe(p);
    send_fds(sv[0], "r", &p[1], 1);
    close(p[1]);
    show("read() the message", read(sv[1], buf, sizeof buf));
    show("pipe at end", read(p[0], buf, 1));
    close(p[0]);

    /* A stream read stops after the message carrying files. */
    pipe(p);
    send(sv[0], "ab", 2, 0);
    send_fds(sv[0], "cd", &p[0], 1);
    send(sv[0], "ef", 2, 0);
    ssize_t r = recv_fds(sv[1], buf, sizeof buf, fds, &n, 64, 0, NULL);
    out("first read: %zd '%.*s' with %d fd(s)", r, (int)r, buf, n);
    close(fds[0]);
    r = read(sv[1], buf, sizeof buf);
    out("second read: %zd '%.*s'", r, (int)r, buf);

    /* Peeking duplicates. */
    send_fds(sv[0], "pk", &p[0], 1);
    recv_fds(sv[1], buf, sizeof buf, fds, &n, 64, MSG_PEEK, NULL);
    int peeked = fds[0];
    recv_fds(sv[1], buf, sizeof buf, fds, &n, 64, 0, NULL);
    out("peek and read give different fds: %s", yesno(peeked != fds[0]));
    write(p[1], "12", 2);
    show("read one byte through the peeked fd", read(peeked, buf, 1));
    show("and one through the read fd", read(fds[0], buf, 1));
    close(peeked);
    close(fds[0]);
    close(p[0]);
    close(p[1]);

    /* A socket passed over a socket. */
    int x[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, x);
    send_fds(sv[0], "S", &x[1], 1);
    close(x[1]);
    recv_fds(sv[1], buf, sizeof buf, fds, &n, 64, 0, NULL);
    fstat(fds[0], &st);
    out("passed socket: %s", ftype(st.st_mode));
    write(x[0], "via", 3);
    show("read from the passed socket", read(fds[0], buf, sizeof buf));
    close(fds[0]);
    close(x[0]);

    /* Datagrams, and another process sharing a file offset. */
    int dg[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg);
    put_file("shared", "0123456789");
    pid_t pid = fork();
    if (pid == 0) {
        int f = open("shared", O_RDONLY);
        char b[4];
        read(f, b, 3);
        send_fds(dg[0], "file", &f, 1);
        _exit(0);
    }
    reap("child sent its file", pid);
    r = recv_fds(dg[1], buf, sizeof buf, fds, &n, 64, 0, NULL);
    out("datagram: %zd bytes, %d fd(s)", r, n);
    r = read(fds[0], buf, 4);
    out("read continues at the child's offset: '%.*s'", (int)r, buf);

    /* Errors. */
    int bad = 999;
    show("SCM_RIGHTS with a bad fd", send_fds(sv[0], "e", &bad, 1));
    show("SCM_RIGHTS with no fds", send_fds(sv[0], "z", fds, 0));
    read(sv[1], buf, sizeof buf);
    char big[CMSG_SPACE(sizeof(int) * 254)];
    memset(big, 0, sizeof big);
    struct cmsghdr *h = (struct cmsghdr *)big;
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int) * 254);
    int *slots = (int *)CMSG_DATA(h);
    int pp[2];
    pipe(pp);
    for (int i = 0; i < 254; i++)
        slots[i] = pp[0];
    rcheck("254 fds", send_raw_control(sv[0], big, sizeof big));
    h->cmsg_len = CMSG_LEN(sizeof(int) * 253);
    rcheck("253 fds", send_raw_control(sv[0], big, CMSG_SPACE(sizeof(int) * 253)));
    recv_fds(sv[1], buf, sizeof buf, fds, &n, 0, MSG_DONTWAIT, NULL);
    h->cmsg_len = 8;
    rcheck("cmsg_len below a header", send_raw_control(sv[0], big, CMSG_SPACE(sizeof(int))));
    h->cmsg_len = CMSG_LEN(sizeof(int) * 4);
    rcheck("cmsg_len past the buffer", send_raw_control(sv[0], big, CMSG_SPACE(sizeof(int))));
    h->cmsg_len = CMSG_LEN(sizeof(int));
    h->cmsg_type = 99;
    rcheck("unknown SOL_SOCKET type", send_raw_control(sv[0], big, CMSG_SPACE(sizeof(int))));
    h->cmsg_level = 6;
    rcheck("another level is skipped", send_raw_control(sv[0], big, CMSG_SPACE(sizeof(int))));
    rcheck("control shorter than a header", send_raw_control(sv[0], big, 8));
    r = recv(sv[1], buf, sizeof buf, MSG_DONTWAIT);
    out("bytes that arrived: %zd", r);
    return 0;
}
