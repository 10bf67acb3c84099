/* A process in a user namespace of its own whose ids 0..999 are
 * 100000..100999 of the initial namespace, the maps written by root of
 * the initial namespace (as newuidmap and newgidmap do for a user), and
 * which then takes id 0 there: its ids are no longer its creator's.
 *
 *   struct mapper m; mapper_init(&m);   before the fork
 *   inner_enter(&m)                     in the process that unshares
 *   mapper_serve(&m)                    in root of the initial namespace
 *
 * After that the two take turns: the inner process says it is ready
 * (inner_ready) and waits for root's go (inner_wait); root waits for the
 * inner process (root_wait) and lets it go on (root_go).
 */
#ifndef USERNS_INNER_H
#define USERNS_INNER_H

#include "../common.h"
#include <sched.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#define INNER_BASE 100000

struct mapper {
    int request[2];
    int mapped[2];
    int ready[2];
    int go[2];
};

static void mapper_init(struct mapper *m)
{
    if (pipe(m->request) < 0 || pipe(m->mapped) < 0 || pipe(m->ready) < 0 || pipe(m->go) < 0)
        out("pipe: %s", errname(errno));
}

static int write_map(pid_t pid, const char *file)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    static const char line[] = "0 100000 1000\n";
    ssize_t w = write(fd, line, sizeof line - 1);
    close(fd);
    return w == (ssize_t)(sizeof line - 1) ? 0 : -1;
}

/* In root of the initial namespace: maps the namespace of the process
 * that asked, lets it go on, and returns its pid. */
static pid_t mapper_serve(struct mapper *m)
{
    pid_t pid = 0;
    if (read_full(m->request[0], &pid, sizeof pid) != sizeof pid)
        return -1;
    if (write_map(pid, "uid_map") < 0 || write_map(pid, "gid_map") < 0)
        out("mapping %s", errname(errno));
    if (write(m->mapped[1], "x", 1) != 1)
        out("mapped: %s", errname(errno));
    return pid;
}

/* In the process that makes the namespace: unshares, waits for the maps
 * and becomes root inside. 0, or -1 after saying what failed. */
static int inner_enter(struct mapper *m)
{
    if (unshare(CLONE_NEWUSER) < 0) {
        out("unshare: %s", errname(errno));
        return -1;
    }
    pid_t me = getpid();
    if (write(m->request[1], &me, sizeof me) != sizeof me)
        return -1;
    char c;
    if (read_full(m->mapped[0], &c, 1) != 1)
        return -1;
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
        out("becoming root inside: %s", errname(errno));
        return -1;
    }
    return 0;
}

/* One byte through a pipe, to order two processes. */
static void post(int fd) __attribute__((unused));
static void post(int fd)
{
    if (write(fd, "x", 1) != 1)
        out("post: %s", errname(errno));
}

static void await(int fd) __attribute__((unused));
static void await(int fd)
{
    char c;
    if (read_full(fd, &c, 1) != 1)
        out("await: end of file");
}

static void inner_ready(struct mapper *m) __attribute__((unused));
static void inner_ready(struct mapper *m) { post(m->ready[1]); }
static void inner_wait(struct mapper *m) __attribute__((unused));
static void inner_wait(struct mapper *m) { await(m->go[0]); }
static void root_wait(struct mapper *m) __attribute__((unused));
static void root_wait(struct mapper *m) { await(m->ready[0]); }
static void root_go(struct mapper *m) __attribute__((unused));
static void root_go(struct mapper *m) { post(m->go[1]); }

/* An abstract unix socket address named `name` (its leading NUL
 * included in `len`), and its length. */
static socklen_t abstract_address(struct sockaddr_un *a, const char *name, size_t len) __attribute__((unused));
static socklen_t abstract_address(struct sockaddr_un *a, const char *name, size_t len)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path, name, len);
    return offsetof(struct sockaddr_un, sun_path) + len;
}

/* A listener of `type` on abstract address `name` (-1 after saying why). */
static int listen_abstract(int type, const char *name, size_t len) __attribute__((unused));
static int listen_abstract(int type, const char *name, size_t len)
{
    struct sockaddr_un a;
    socklen_t alen = abstract_address(&a, name, len);
    int l = socket(AF_UNIX, type, 0);
    if (bind(l, (struct sockaddr *)&a, alen) < 0 || listen(l, 1) < 0) {
        out("inner listen: %s", errname(errno));
        return -1;
    }
    return l;
}

/* A socket of `type` connected to abstract address `name`, after saying
 * how the connect went as `label`. */
static int connect_abstract(const char *label, int type, const char *name, size_t len) __attribute__((unused));
static int connect_abstract(const char *label, int type, const char *name, size_t len)
{
    struct sockaddr_un a;
    socklen_t alen = abstract_address(&a, name, len);
    int s = socket(AF_UNIX, type, 0);
    check(label, connect(s, (struct sockaddr *)&a, alen));
    return s;
}

#endif
