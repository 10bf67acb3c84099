/* Unix socket credentials across user namespaces, between root of the
 * initial namespace and a process that became root of its own (ids
 * 0..999 = 100000..100999): SO_PEERCRED gives the peer's ids as the
 * reader's namespace sees them (65534 when it does not map them);
 * SCM_CREDENTIALS takes a sender's claimed ids in the sender's namespace
 * (EINVAL for ids it does not map, EPERM for another process's pid
 * without CAP_SYS_ADMIN over its PID namespace) and hands them to the
 * receiver in the receiver's, explicit or added for SO_PASSCRED. */
#include "inner.h"

static const char NAME[] = "\0userns-socket-creds";

static void peercred(const char *label, int fd, pid_t expected)
{
    struct ucred c;
    socklen_t len = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: pid %s uid %d gid %d", label, c.pid == expected ? "right" : "wrong", (int)c.uid, (int)c.gid);
}

/* Sends one byte with `creds` (NULL: none). */
static long send_creds(int fd, const struct ucred *creds)
{
    char byte = 'x';
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (creds) {
        msg.msg_control = u.buf;
        msg.msg_controllen = sizeof u.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_CREDENTIALS;
        c->cmsg_len = CMSG_LEN(sizeof *creds);
        memcpy(CMSG_DATA(c), creds, sizeof *creds);
    }
    return sendmsg(fd, &msg, 0);
}

static void receive(const char *label, int fd, pid_t expected)
{
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    if (recvmsg(fd, &msg, 0) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS) {
        out("%s: no credentials", label);
        return;
    }
    struct ucred cr;
    memcpy(&cr, CMSG_DATA(c), sizeof cr);
    out("%s: pid %s uid %d gid %d", label, cr.pid == expected ? "right" : "wrong", (int)cr.uid, (int)cr.gid);
}

int main(void)
{
    struct mapper m;
    mapper_init(&m);
    int pair[2];
    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
    pid_t outer = getpid();
    peercred("root, SO_PEERCRED of its own pair", pair[0], outer);
    int on = 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(pair[0]);
        if (inner_enter(&m) < 0)
            _exit(1);
        peercred("inner, SO_PEERCRED of a pair root made", pair[1], outer);
        int l = listen_abstract(SOCK_SEQPACKET, NAME, sizeof NAME - 1);
        inner_ready(&m);
        int s = accept(l, NULL, NULL);
        inner_wait(&m);
        peercred("inner, SO_PEERCRED of root's connection", s, outer);
        setsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
        inner_ready(&m);

        struct ucred mine = {getpid(), 0, 0};
        check("inner sends its own ids", send_creds(s, &mine));
        struct ucred others = {getpid(), 5, 6};
        check("inner sends ids 5 and 6 of its namespace", send_creds(s, &others));
        struct ucred unmapped = {getpid(), 1000, 0};
        check("inner sends uid 1000 (unmapped)", send_creds(s, &unmapped));
        struct ucred invalid = {getpid(), 0, (gid_t)-1};
        check("inner sends gid -1", send_creds(s, &invalid));
        struct ucred pid_of_root = {outer, 0, 0};
        check("inner sends root's pid", send_creds(s, &pid_of_root));
        check("inner sends without credentials", send_creds(s, NULL));
        inner_ready(&m);

        inner_wait(&m);
        receive("inner receives root's claimed 100003/100004", s, outer);
        receive("inner receives root's own ids", s, outer);
        receive("inner receives root's implicit ids", s, outer);
        _exit(0);
    }
    close(pair[1]);
    mapper_serve(&m);
    root_wait(&m);
    int s = connect_abstract("root connects", SOCK_SEQPACKET, NAME, sizeof NAME - 1);
    peercred("root, SO_PEERCRED of the inner listener", s, pid);
    setsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    root_go(&m);
    root_wait(&m);
    root_wait(&m);
    receive("root receives the inner's own ids", s, pid);
    receive("root receives the inner's 5 and 6", s, pid);
    receive("root receives the inner's implicit ids", s, pid);

    struct ucred claimed = {outer, INNER_BASE + 3, INNER_BASE + 4};
    check("root sends 100003/100004", send_creds(s, &claimed));
    struct ucred own = {outer, 0, 0};
    check("root sends its own ids", send_creds(s, &own));
    check("root sends without credentials", send_creds(s, NULL));
    root_go(&m);
    reap("inner", pid);
    return 0;
}
