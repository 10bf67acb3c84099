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
        ssize_t n = write(p[1], buf, 1000);
        if (n < 0) {
            out("filled after %ld bytes, then %s", total, errname(errno));
            break;
        }
        total += n;
        if (total > 1 << 20)
            break;
    }
    show("read 100", read(p[0], buf, 100));
    show("write 1000 with 100 free (non-atomic partial write is not allowed below PIPE_BUF)", write(p[1], buf, 1000));
    /* Drain 8192: a large write then writes what fits. */
    read_full(p[0], buf, 8192);
    show("write 16384 with ~8 KiB free", write(p[1], (char[16384]){0}, 16384));
    close(p[1]);
    long drained = 0;
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        drained += n;
    out("drained %ld, then read returns %ld", drained, (long)n);
    return 0;
}
