/* io_getevents waiting with no timeout is ended by a caught signal: EINTR
 * (never restarted, whatever SA_RESTART says); a completion from another
 * process... here a poll request completed by a child's write wakes it. */
#include "aio.h"
#include <poll.h>

static volatile int caught;
static void on_alarm(int s) { (void)s; caught++; }

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
    sigaction(SIGALRM, &sa, NULL);
    struct io_event ev;
    alarm(1);
    show("io_getevents (SA_RESTART handler)", io_getevents(ctx, 1, 1, &ev, NULL));
    out("handler ran: %d", caught);

    int p[2];
    pipe(p);
    struct iocb r = mkiocb(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLIN, 0, 0, 3);
    try_submit("poll", ctx, &r);
    pid_t pid = fork();
    if (pid == 0) {
        msleep(200);
        write(p[1], "x", 1);
        _exit(0);
    }
    long n = io_getevents(ctx, 1, 1, &ev, NULL);
    show("io_getevents woken by the child's write", n);
    out("event: data=%llu res=%s", (unsigned long long)ev.data, resname(ev.res));
    reap("child", pid);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
