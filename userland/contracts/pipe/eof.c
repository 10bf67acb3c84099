/* read returns 0 (EOF) only after every write end is closed, including
 * copies held by children; data written before closing is still read. */
#include "common.h"

int main(void)
{
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        write(p[1], "hello", 5);
        _exit(0);
    }
    close(p[1]);
    char buf[16] = {0};
    show("read", read(p[0], buf, sizeof buf));
    out("data: %s", buf);
    show("read after the writer exited", read(p[0], buf, sizeof buf));
    reap("writer", pid);

    int q[2];
    pipe(q);
    pid_t a = fork();
    if (a == 0) {
        close(q[0]);
        msleep(100);
        write(q[1], "late", 4);
        _exit(0);
    }
    close(q[1]);
    memset(buf, 0, sizeof buf);
    show("blocking read waits for the child", read_full(q[0], buf, 4));
    out("data: %s", buf);
    show("then EOF", read(q[0], buf, 1));
    reap("child", a);
    /* Partial read: a read returns what is there, not the requested size. */
    int r[2];
    pipe(r);
    write(r[1], "0123456789", 10);
    show("read 100 with 10 queued", read(r[0], buf, 100 > sizeof buf ? sizeof buf : 100));
    write(r[1], "ab", 2);
    show("read 1", read(r[0], buf, 1));
    show("read rest", read(r[0], buf, 16));
    return 0;
}
