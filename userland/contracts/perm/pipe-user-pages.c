/* pipe-user-pages-soft (16384 pages by default): pipes are accounted to
 * the user who made them, 16 pages each; once an unprivileged user holds
 * more, a new pipe gets 2 pages and F_SETPIPE_SZ cannot grow a pipe
 * (EPERM), though it may shrink one. CAP_SYS_RESOURCE is exempt. */
#include "perm.h"
#include <sys/resource.h>

#define PIPES 1100

static void fill(long unused)
{
    (void)unused;
    static int ends[PIPES][2];
    int made = 0;
    for (int i = 0; i < PIPES; i++) {
        if (pipe(ends[i]) != 0) {
            out("pipe %d: %s", i, errname(errno));
            break;
        }
        made++;
    }
    out("pipes made: %d", made);
    if (made < PIPES)
        return;
    out("size of pipe 1024: %d", fcntl(ends[1023][0], F_GETPIPE_SZ));
    out("size of pipe 1025: %d", fcntl(ends[1024][0], F_GETPIPE_SZ));
    out("size of pipe 1100: %d", fcntl(ends[1099][0], F_GETPIPE_SZ));
    show("grow pipe 1025 to 64 KiB", fcntl(ends[1024][1], F_SETPIPE_SZ, 65536));
    show("grow pipe 1024 to 128 KiB", fcntl(ends[1023][1], F_SETPIPE_SZ, 131072));
    show("shrink pipe 1024 to 4 KiB", fcntl(ends[1023][1], F_SETPIPE_SZ, 4096));
    /* What the shrink gave back: one pipe's 16 pages less 1, not enough
     * for a 16-page pipe while 76 small ones are over the limit. */
    show("grow pipe 1024 back to 64 KiB", fcntl(ends[1023][1], F_SETPIPE_SZ, 65536));
    for (int i = 0; i < PIPES; i++) {
        close(ends[i][0]);
        close(ends[i][1]);
    }
    /* All given back: a new pipe has 16 pages again. */
    int p[2];
    if (pipe(p) == 0)
        out("size of a pipe after closing them all: %d", fcntl(p[0], F_GETPIPE_SZ));
}

int main(void)
{
    struct rlimit rl = {4096, 4096};
    show("setrlimit NOFILE 4096", setrlimit(RLIMIT_NOFILE, &rl));
    out("uid 1000, no capability:");
    as_user(NO_CAP, fill, 0);
    out("uid 1000 with CAP_SYS_RESOURCE:");
    as_user(CAP_SYS_RESOURCE_, fill, 0);
    out("root:");
    fill(0);
    return 0;
}
