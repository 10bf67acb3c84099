/* O_NONBLOCK pipes: read of an empty pipe is EAGAIN while a writer exists
 * (0 once none does); writes fill the 64 KiB default buffer then EAGAIN;
 * a partial write happens when some room is left. */
#include "common.h"

int main(void)
{
    int p[2];
    pipe2(p, O_NONBLOCK);
    char buf[8192];
    show("read empty", read(p[0], buf, 1));
    memset(buf, 'x', sizeof buf);
    long total = 0;
    for (;;) {
        ssize_t n = write(p[1], buf, 4096);
        if (n < 0) {
            out("filled after %ld bytes, then %s", total, errname(errno));
            break;
        }
        total += n;
        if (total > 1 << 20)
            break;
    }
    show("write 1 when full", write(p[1], buf, 1));
    show("read 4096", read(p[0], buf, 4096));
    show("write 4096 into the freed room", write(p[1], buf, 4096));
    show("write 1 when full again", write(p[1], buf, 1));
    /* 8 KiB free: a large (non-atomic) write writes what fits. */
    read_full(p[0], buf, 8192);
    show("write 16384 with 8192 free", write(p[1], (char[16384]){0}, 16384));
    close(p[1]);
    long drained = 0;
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        drained += n;
    out("drained %ld, then read returns %ld", drained, (long)n);
    return 0;
}
