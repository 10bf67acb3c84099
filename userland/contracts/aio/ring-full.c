/* A context takes at least the requests io_setup asked for; once the ring
 * could not hold one more completion io_submit fails with EAGAIN (a batch
 * with the count it got through), and reaping events makes room again.
 * io_submit takes at most ring->nr iocbs in one call. */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup 4", io_setup(4, &ctx));
    struct aio_ring *ring = (struct aio_ring *)ctx;
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char buf[4];
    struct iocb cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 1);
    long accepted = 0;
    int err = 0;
    for (int i = 0; i < 10000; i++) {
        if (submit1(ctx, &cb) != 1) {
            err = errno;
            break;
        }
        accepted++;
    }
    out("accepted at least 4: %s", yesno(accepted >= 4));
    out("accepted fewer than ring->nr: %s", yesno(accepted < ring->nr));
    out("then: %s", errname(err));
    struct io_event ev[2];
    struct timespec zero = { 0, 0 };
    show("reap 2", io_getevents(ctx, 2, 2, ev, &zero));
    struct iocb *list[3] = { &cb, &cb, &cb };
    show("batch of 3 with room for 2", io_submit(ctx, 3, list));
    show("one more", submit1(ctx, &cb));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
