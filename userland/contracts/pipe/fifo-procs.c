/* A FIFO opened by two processes: a blocking open for reading waits for a
 * writer and vice versa; data flows in order; EOF when the writer closes. */
#include "common.h"

int main(void)
{
    mkfifo("chan", 0600);
    pid_t pid = fork();
    if (pid == 0) {
        int w = open("chan", O_WRONLY); /* blocks until the parent opens */
        for (int i = 0; i < 100; i++) {
            char line[16];
            int n = snprintf(line, sizeof line, "%03d;", i);
            write(w, line, n);
        }
        close(w);
        _exit(0);
    }
    int r = open("chan", O_RDONLY);
    out("reader open returned: %s", r >= 0 ? "ok" : errname(errno));
    static char buf[1024];
    ssize_t n = read_full(r, buf, sizeof buf);
    out("bytes: %ld", (long)n);
    int inorder = 1;
    for (int i = 0; i < 100; i++) {
        char want[8];
        snprintf(want, sizeof want, "%03d;", i);
        if (memcmp(buf + 4 * i, want, 4))
            inorder = 0;
    }
    out("in order: %s", yesno(inorder));
    reap("writer", pid);
    close(r);
    /* Reverse roles: the child reads. With no reader or writer left, each
     * blocking open waits for the other side. */
    pid = fork();
    if (pid == 0) {
        int rr = open("chan", O_RDONLY);
        char b[8] = {0};
        read_full(rr, b, 5);
        out("child read: %s", b);
        _exit(0);
    }
    int w = open("chan", O_WRONLY);
    write(w, "pong!", 5);
    close(w);
    reap("reader", pid);
    return 0;
}
