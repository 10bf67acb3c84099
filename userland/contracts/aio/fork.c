/* Contexts belong to the address space: a forked child does not have its
 * parent's (EINVAL for each call), even though the ring stays mapped in
 * it; the parent's context keeps working; threads share them. */
#include "aio.h"
#include <pthread.h>

static aio_context_t shared;
static void *thread_main(void *arg)
{
    (void)arg;
    aio_context_t t = 0;
    io_setup(4, &t);
    shared = t;
    return NULL;
}

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char buf[4];
    struct iocb cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 1);
    pid_t pid = fork();
    if (pid == 0) {
        struct io_event ev;
        struct timespec zero = { 0, 0 };
        check("child io_submit", submit1(ctx, &cb));
        check("child io_getevents", io_getevents(ctx, 0, 1, &ev, &zero));
        out("child sees the ring magic: %#x", ((struct aio_ring *)ctx)->magic);
        check("child io_destroy", io_destroy(ctx));
        _exit(0);
    }
    reap("child", pid);
    try_submit("parent io_submit", ctx, &cb);
    reap_one("parent event", ctx, &cb);
    pthread_t th;
    pthread_create(&th, NULL, thread_main, NULL);
    pthread_join(th, NULL);
    try_submit("submit to a thread's context", shared, &cb);
    reap_one("its event", shared, &cb);
    check("io_destroy the thread's", io_destroy(shared));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
