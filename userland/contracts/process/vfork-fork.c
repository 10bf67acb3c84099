/* A vfork child that forks before it exits (BusyBox's timeout does this):
 * the fork makes the shared pages copy-on-write and the child's next
 * stack write copies its page. When the parent runs again it must see the
 * child's write, and its own writes must not reach the grandchild's copy,
 * whichever CPU each of them ran on (a parent whose wait ended without a
 * context switch still had TLB entries for the old page). Repeated to
 * give a CPU race many chances. */
#include "common.h"

#define ROUNDS 200

static int round_once(int *parent_ok)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    volatile int marker = 1;
    pid_t pid = vfork();
    if (pid == 0) {
        pid_t g = fork();
        if (g == 0) {
            char c;
            read(p[0], &c, 1); /* until the parent has written its value */
            _exit(marker == 1 ? 0 : 1);
        }
        marker = 2; /* copy-on-write: our (and the parent's) page only */
        _exit(g < 0 ? 2 : 0);
    }
    *parent_ok = marker == 2;
    marker = 3;
    write(p[1], "x", 1);
    close(p[0]);
    close(p[1]);
    int bad = 0, st;
    pid_t r;
    while ((r = wait(&st)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            bad++;
    return bad;
}

int main(void)
{
    int parent_saw = 0, grandchild_kept = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int ok = 0;
        int bad = round_once(&ok);
        parent_saw += ok;
        grandchild_kept += bad == 0;
    }
    out("parent saw the child's write: %d of %d", parent_saw, ROUNDS);
    out("grandchild kept its own copy: %d of %d", grandchild_kept, ROUNDS);
    return 0;
}
