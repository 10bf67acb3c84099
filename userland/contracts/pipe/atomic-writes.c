/* Writes of at most PIPE_BUF (4096) bytes are atomic: two writers sending
 * 4096-byte blocks never interleave inside a block. */
#include "common.h"
#include <limits.h>

#define BLOCKS 64

int main(void)
{
    out("PIPE_BUF: %d", PIPE_BUF);
    int p[2];
    pipe(p);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            close(p[0]);
            char blk[PIPE_BUF];
            memset(blk, k ? 'B' : 'A', sizeof blk);
            for (int i = 0; i < BLOCKS; i++)
                if (write(p[1], blk, sizeof blk) != sizeof blk)
                    _exit(1);
            _exit(0);
        }
    }
    close(p[1]);
    static char blk[PIPE_BUF];
    int a = 0, b = 0, mixed = 0;
    for (;;) {
        ssize_t n = read_full(p[0], blk, sizeof blk);
        if (n == 0)
            break;
        if (n != PIPE_BUF) {
            out("short block: %ld", (long)n);
            break;
        }
        char first = blk[0];
        for (int i = 1; i < PIPE_BUF; i++)
            if (blk[i] != first) {
                mixed++;
                break;
            }
        if (first == 'A')
            a++;
        else
            b++;
    }
    out("blocks: A=%d B=%d mixed=%d", a, b, mixed);
    reap("writer A", kids[0]);
    reap("writer B", kids[1]);
    return 0;
}
