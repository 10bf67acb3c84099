/* Writing to a pipe with no reader: SIGPIPE kills by default; if ignored or
 * caught, write fails with EPIPE (after the handler ran). */
#include "common.h"

static volatile int caught;
static void on_pipe(int s) { caught = s; }

int main(void)
{
    int p[2];
    pipe(p);
    close(p[0]);
    pid_t pid = fork();
    if (pid == 0) {
        write(p[1], "x", 1);
        _exit(0);
    }
    reap("default disposition", pid);
    signal(SIGPIPE, SIG_IGN);
    show("ignored: write", write(p[1], "x", 1));
    signal(SIGPIPE, on_pipe);
    show("caught: write", write(p[1], "x", 1));
    out("handler saw: %s", signame(caught));
    /* Reader closes while a writer has data queued. */
    int q[2];
    pipe(q);
    write(q[1], "abc", 3);
    close(q[0]);
    caught = 0;
    show("queued data, reader gone: write", write(q[1], "d", 1));
    out("handler saw: %s", signame(caught));
    /* A FIFO's writer sees the same. */
    mkfifo("ff", 0644);
    int r = open("ff", O_RDONLY | O_NONBLOCK);
    int w = open("ff", O_WRONLY);
    close(r);
    caught = 0;
    show("fifo without reader: write", write(w, "x", 1));
    out("handler saw: %s", signame(caught));
    return 0;
}
