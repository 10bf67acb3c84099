/* SO_PEERGROUPS: the supplementary groups of the process a unix socket's
 * peer credentials were taken from (socketpair, connect, listen), in the
 * order of the kernel's ids, as the reader's user namespace sees them
 * (65534 for a group it does not map); a buffer too short is ERANGE with
 * the length needed written back; no peer credentials (an unconnected
 * unix socket, a TCP or UDP socket) is ENODATA. The groups of a process
 * in a namespace whose ids 0..999 are 100000..100999, both ways. */
#include "inner.h"
#include <grp.h>
#include <netinet/in.h>

static const char NAME[] = "\0userns-peergroups";

static void groups_of(const char *label, int fd, socklen_t room)
{
    gid_t list[16];
    socklen_t len = room;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, list, &len) < 0) {
        out("%s (room %d): %s, length %d", label, (int)room, errname(errno), (int)len);
        return;
    }
    char text[256] = "";
    for (unsigned i = 0; i < len / sizeof(gid_t); i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %d", (int)list[i]);
    out("%s (room %d): length %d,%s", label, (int)room, (int)len, len ? text : " none");
}

static void own_groups(const char *label)
{
    gid_t list[16];
    int n = getgroups(16, list);
    char text[256] = "";
    for (int i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %d", (int)list[i]);
    out("%s:%s", label, n > 0 ? text : " none");
}

int main(void)
{
    int pair[2];
    check("setgroups none", setgroups(0, NULL));
    socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
    groups_of("a pair made with no groups", pair[0], 64);
    close(pair[0]);
    close(pair[1]);

    gid_t mine[] = {100002, 20, 100001, 10};
    check("setgroups 100002 20 100001 10", setgroups(4, mine));
    own_groups("root's groups");
    socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
    groups_of("root's pair", pair[0], 0);
    groups_of("root's pair", pair[0], 12);
    groups_of("root's pair", pair[0], 16);
    groups_of("root's pair", pair[0], 64);

    int lone = socket(AF_UNIX, SOCK_STREAM, 0);
    groups_of("an unconnected unix socket", lone, 64);
    int tcp = socket(AF_INET, SOCK_STREAM, 0);
    groups_of("a TCP socket", tcp, 64);
    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    groups_of("a UDP socket", udp, 64);

    struct mapper m;
    mapper_init(&m);
    pid_t pid = fork();
    if (pid == 0) {
        close(pair[0]);
        if (inner_enter(&m) < 0)
            _exit(1);
        groups_of("inner, root's pair", pair[1], 16);
        gid_t inside[] = {7, 0, 3};
        check("inner setgroups 7 0 3", setgroups(3, inside));
        own_groups("inner's groups");
        int own[2];
        socketpair(AF_UNIX, SOCK_STREAM, 0, own);
        groups_of("inner, its own pair", own[0], 64);
        int l = listen_abstract(SOCK_STREAM, NAME, sizeof NAME - 1);
        inner_ready(&m);
        int s = accept(l, NULL, NULL);
        inner_wait(&m);
        groups_of("inner, root's connection", s, 64);
        _exit(0);
    }
    close(pair[1]);
    mapper_serve(&m);
    root_wait(&m);
    int s = connect_abstract("root connects", SOCK_STREAM, NAME, sizeof NAME - 1);
    groups_of("root, the inner listener", s, 4);
    groups_of("root, the inner listener", s, 64);
    root_go(&m);
    reap("inner", pid);
    return 0;
}
