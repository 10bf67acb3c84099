/* sock_diag's AF_UNIX answers (unix_diag): a stream listener bound to a
 * path with a client whose connection waits for accept (the listener's
 * UNIX_DIAG_ICONS names the client, RQLEN gives 1 waiting and the
 * backlog), then accepted (the ends name each other in UNIX_DIAG_PEER),
 * 5 bytes sent (RQLEN of the reader), an abstract datagram socket, a
 * socketpair, and shutdown(SHUT_WR) on one end. UNIX_DIAG_VFS gives the
 * bound file's inode and device as stat(2) does; UNIX_DIAG_UID the owner.
 * Dumps by state, the attributes udiag_show asks for, and one socket by
 * inode (0: EINVAL; unknown: ENOENT; wrong cookie: ESTALE). */
#include "sockdiag.h"
#include <sys/sysmacros.h>

static const char *names[] = {"listener", "client", "server", "abstract", "pair0", "pair1"};
static int fds[6];

static const char *fdname(uint32_t ino)
{
    int k = which_fd(ino, fds, 6);
    return k < 0 ? (ino ? "other" : "0") : names[k];
}

static void describe(struct nlmsghdr *h, int k, char *line, size_t size)
{
    struct unix_diag_msg *m = (struct unix_diag_msg *)(h + 1);
    int len = NL_ATTRLEN(h, sizeof *m);
    char *at = NL_ATTRS(h, sizeof *m);
    snprintf(line, size, "  %s: flags %#x type %d state %s attrs %s", fdname(m->ino), h->nlmsg_flags, m->type, tcpstate(m->state), attr_list(h, sizeof *m));
    struct nlattr *a;
    if ((a = nl_find(at, len, UNIX_DIAG_NAME))) {
        char name[128] = "";
        int n = a->nla_len - 4;
        char *p = NL_DATA(a);
        for (int i = 0; i < n && i < 100; i++)
            snprintf(name + strlen(name), sizeof name - strlen(name), "%c", p[i] ? p[i] : '@');
        snprintf(line + strlen(line), size - strlen(line), " name(%d) %s", n, name);
    }
    if ((a = nl_find(at, len, UNIX_DIAG_VFS))) {
        uint32_t *v = NL_DATA(a);
        struct stat st;
        stat("sock", &st);
        /* The file system's device as the kernel keeps it: the major
         * number in the top 12 bits. */
        uint32_t kdev = (major(st.st_dev) << 20) | minor(st.st_dev);
        snprintf(line + strlen(line), size - strlen(line), " vfs ino is st_ino %s dev is st_dev's %s", yesno(v[0] == st.st_ino), yesno(v[1] == kdev));
    }
    if ((a = nl_find(at, len, UNIX_DIAG_PEER)))
        snprintf(line + strlen(line), size - strlen(line), " peer %s", fdname(*(uint32_t *)NL_DATA(a)));
    if ((a = nl_find(at, len, UNIX_DIAG_ICONS))) {
        snprintf(line + strlen(line), size - strlen(line), " icons [");
        for (int i = 0; i < (a->nla_len - 4) / 4; i++)
            snprintf(line + strlen(line), size - strlen(line), "%s%s", i ? " " : "", fdname(((uint32_t *)NL_DATA(a))[i]));
        snprintf(line + strlen(line), size - strlen(line), "]");
    }
    if ((a = nl_find(at, len, UNIX_DIAG_RQLEN))) {
        uint32_t *v = NL_DATA(a);
        snprintf(line + strlen(line), size - strlen(line), " rqueue %u%s", v[0], m->state == 10 ? "" : "");
        if (m->state == 10)
            snprintf(line + strlen(line), size - strlen(line), " backlog %u", v[1]);
    }
    if ((a = nl_find(at, len, UNIX_DIAG_MEMINFO))) {
        uint32_t *v = NL_DATA(a);
        int fd = fds[which_fd(m->ino, fds, 6) < 0 ? 0 : which_fd(m->ino, fds, 6)];
        int rcv = 0, snd = 0;
        socklen_t sl = sizeof rcv;
        getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &sl);
        sl = sizeof snd;
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, &sl);
        snprintf(line + strlen(line), size - strlen(line), " meminfo(%d) rcvbuf ok %s sndbuf ok %s", a->nla_len - 4, yesno((int)v[SK_MEMINFO_RCVBUF] == rcv), yesno((int)v[SK_MEMINFO_SNDBUF] == snd));
    }
    if ((a = nl_find(at, len, UNIX_DIAG_SHUTDOWN)))
        snprintf(line + strlen(line), size - strlen(line), " shutdown %u", *(uint8_t *)NL_DATA(a));
    if ((a = nl_find(at, len, UNIX_DIAG_UID)))
        snprintf(line + strlen(line), size - strlen(line), " uid %u", *(uint32_t *)NL_DATA(a));
}

static void show_dump(const char *label, int d, uint32_t states, uint32_t show)
{
    struct unix_diag_req req = {.family = AF_UNIX, .states = states, .show = show};
    struct replies r;
    ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req, &r);
    show_replies(label, &r, fds, 6, describe);
}

static void exact(int d, const char *label, uint32_t ino, const uint32_t *cookie, uint32_t show)
{
    struct unix_diag_req req = {.family = AF_UNIX, .states = 0xfff, .ino = ino, .show = show,
                                .cookie = {cookie ? cookie[0] : INET_DIAG_NOCOOKIE, cookie ? cookie[1] : INET_DIAG_NOCOOKIE}};
    struct replies r;
    ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &req, sizeof req, &r);
    out("%s: %d replies, then %s", label, r.n, ending(&r));
    for (int i = 0; i < r.n; i++) {
        char line[600];
        describe(r.msg[i], -1, line, sizeof line);
        out("%s", line);
    }
    replies_free(&r);
}

int main(void)
{
    diag_setup();
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "sock"};
    check("bind", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 4));
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    check("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    int ab = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un aa = {.sun_family = AF_UNIX, .sun_path = "\0diag-abstract"};
    check("bind abstract", bind(ab, (struct sockaddr *)&aa, offsetof(struct sockaddr_un, sun_path) + 14));
    int sp[2];
    check("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sp));
    fds[0] = l, fds[1] = c, fds[2] = -1, fds[3] = ab, fds[4] = sp[0], fds[5] = sp[1];
    int d = diag_open();
    uint32_t all = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_PEER | UDIAG_SHOW_ICONS | UDIAG_SHOW_RQLEN | UDIAG_SHOW_UID;
    show_dump("before accept, everything", d, 0xfff, all);
    int s = accept(l, NULL, NULL);
    check("accept", s < 0 ? -1 : 0);
    fds[2] = s;
    check("send", send(c, "hello", 5, 0) == 5 ? 0 : -1);
    check("shutdown(SHUT_WR)", shutdown(sp[0], SHUT_WR));
    show_dump("after accept, everything", d, 0xfff, all);
    show_dump("nothing shown", d, 0xfff, 0);
    show_dump("listening only", d, 1 << 10, UDIAG_SHOW_NAME);
    show_dump("established only", d, 1 << 1, UDIAG_SHOW_PEER);
    show_dump("close only", d, 1 << 7, UDIAG_SHOW_NAME);
    show_dump("meminfo", d, 1 << 10, UDIAG_SHOW_MEMINFO);
    exact(d, "server by inode", ino_of(s), NULL, UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN);
    exact(d, "inode 0", 0, NULL, 0);
    struct replies r;
    struct unix_diag_req req = {.family = AF_UNIX, .states = 0xfff};
    ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req, &r);
    uint32_t cookie[2] = {0, 0}, max_ino = 0;
    for (int i = 0; i < r.n; i++) {
        struct unix_diag_msg *m = (struct unix_diag_msg *)(r.msg[i] + 1);
        if (m->ino == ino_of(ab))
            memcpy(cookie, m->cookie, sizeof cookie);
        if (m->ino > max_ino)
            max_ino = m->ino;
    }
    replies_free(&r);
    exact(d, "an inode no socket has", max_ino + 1000, NULL, 0);
    exact(d, "abstract, the dump's cookie", ino_of(ab), cookie, UDIAG_SHOW_NAME);
    cookie[1] ^= 1;
    exact(d, "abstract, another cookie", ino_of(ab), cookie, UDIAG_SHOW_NAME);
    return 0;
}
