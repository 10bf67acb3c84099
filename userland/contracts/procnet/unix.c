/* /proc/net/unix lists every AF_UNIX socket of the namespace (unix_seq_show):
 * the header, then per socket the flags (00010000 on a listener), the type
 * (0001 stream, 0002 dgram, 0005 seqpacket), the state (01 unconnected, 03
 * connected), the inode of its file and its path: a file name as bound,
 * an abstract one with '@' for its leading NUL. */
#include "procnet.h"
#include <stddef.h>

static void show_unix(const int *fds, const char *const *names, int n)
{
    if (slurp("/proc/net/unix") < 0) {
        out("/proc/net/unix: %s", errname(errno));
        return;
    }
    char *lines[256];
    int count = 0;
    for (char *l = strtok(text, "\n"); l && count < 256; l = strtok(NULL, "\n"))
        lines[count++] = l;
    out("header: %s", count ? lines[0] : "(none)");
    int others = 0;
    for (int k = -1; k < n; k++) {
        for (int i = 1; i < count; i++) {
            char copy[512];
            snprintf(copy, sizeof copy, "%s", lines[i]);
            char *f[16];
            int nf = fields(copy, f, 16);
            unsigned long ino = nf > 6 ? strtoul(f[6], NULL, 10) : 0;
            int which = -1;
            for (int j = 0; j < n; j++)
                if (ino == ino_of(fds[j]))
                    which = j;
            if (k < 0) {
                others += which < 0;
                continue;
            }
            if (which == k)
                out("  %s: num-colon %s flags %s type %s st %s path %s fields %d", names[k], yesno(f[0][strlen(f[0]) - 1] == ':'), f[3], f[4], f[5], nf > 7 ? f[7] : "(none)", nf);
        }
    }
    out("  other lines: %d", others);
}

int main(void)
{
    fresh_net();
    unlink("/tmp/procnet.sock");
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "/tmp/procnet.sock");
    check("bind path", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 4));
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    check("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    int s = accept(l, NULL, NULL);
    out("accept: %s", s >= 0 ? "ok" : errname(errno));
    int d = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un ab = {.sun_family = AF_UNIX};
    memcpy(ab.sun_path, "\0procnet-abs", 12);
    check("bind abstract", bind(d, (struct sockaddr *)&ab, offsetof(struct sockaddr_un, sun_path) + 12));
    int pair[2];
    check("socketpair seqpacket", socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair));
    int fresh = socket(AF_UNIX, SOCK_DGRAM, 0);
    int fds[7] = {l, c, s, d, pair[0], pair[1], fresh};
    const char *names[7] = {"listener", "client", "accepted", "abstract dgram", "pair 0", "pair 1", "unbound dgram"};
    show_unix(fds, names, 7);
    close(l);
    close(c);
    close(s);
    unlink("/tmp/procnet.sock");
    out("after closing three:");
    show_unix(fds, names, 7);
    return 0;
}
