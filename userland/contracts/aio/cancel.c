/* io_cancel: a waiting poll request is cancelled (EINPROGRESS: its event,
 * with result 0, comes through the ring); a request already complete, one
 * never submitted and an iocb whose aio_key is not 0 are EINVAL, an
 * unknown context EINVAL, a bad iocb pointer EFAULT. */
#include "aio.h"
#include <poll.h>

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int p[2];
    pipe(p);
    struct io_event res;
    struct iocb r = mkiocb(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLIN, 0, 0, 7);
    try_submit("poll", ctx, &r);
    check("io_cancel unknown context", io_cancel(0x1000, &r, &res));
    check("io_cancel the poll", io_cancel(ctx, &r, &res));
    reap_one("cancelled poll", ctx, &r);
    check("io_cancel it again", io_cancel(ctx, &r, &res));

    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char buf[4];
    struct iocb rd = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 8);
    try_submit("pread", ctx, &rd);
    check("io_cancel a completed read", io_cancel(ctx, &rd, &res));
    reap_one("read", ctx, &rd);
    struct iocb never = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 9);
    check("io_cancel never submitted", io_cancel(ctx, &never, &res));
    never.aio_key = 1;
    check("io_cancel with aio_key 1", io_cancel(ctx, &never, &res));
    check("io_cancel bad pointer", io_cancel(ctx, (struct iocb *)8, &res));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
