/* io_destroy with a poll request still waiting cancels it and returns 0;
 * a thread blocked in io_getevents on the context then fails with EINVAL;
 * the pipe's later readiness completes nothing. */
#include "aio.h"
#include <poll.h>
#include <pthread.h>

static aio_context_t ctx;
static long waiter_result;
static int waiter_errno;
static void *waiter(void *arg)
{
    (void)arg;
    struct io_event ev;
    waiter_result = io_getevents(ctx, 2, 2, &ev, NULL);
    waiter_errno = errno;
    return NULL;
}

int main(void)
{
    check("io_setup", io_setup(8, &ctx));
    int p[2];
    pipe(p);
    struct iocb r = mkiocb(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLIN, 0, 0, 1);
    try_submit("poll", ctx, &r);
    pthread_t th;
    pthread_create(&th, NULL, waiter, NULL);
    msleep(200);
    check("io_destroy", io_destroy(ctx));
    pthread_join(th, NULL);
    out("waiter: %ld %s", waiter_result, waiter_result < 0 ? errname(waiter_errno) : "");
    write(p[1], "x", 1);
    check("io_submit after destroy", submit1(ctx, &r));
    return 0;
}
