/* IOCB_CMD_PWRITE and IOCB_CMD_PREAD on a file: each completes with an
 * event carrying aio_data, the iocb's address and the byte count (a read
 * past the end is short, at the end 0); the ring's tail moves with the
 * completions and io_getevents moves its head. */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    struct aio_ring *ring = (struct aio_ring *)ctx;
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char data[] = "hello, asynchronous world";
    struct iocb w = mkiocb(IOCB_CMD_PWRITE, fd, data, 25, 0, 11);
    try_submit("pwrite", ctx, &w);
    out("ring holds one: %s", yesno(ring->tail - ring->head == 1));
    reap_one("pwrite event", ctx, &w);
    out("head == tail: %s", yesno(ring->head == ring->tail));
    out("aio_key after submit: %u", w.aio_key);

    char buf[64] = { 0 };
    struct iocb r1 = mkiocb(IOCB_CMD_PREAD, fd, buf, 5, 7, 12);
    struct iocb r2 = mkiocb(IOCB_CMD_PREAD, fd, buf + 10, 40, 20, 13);
    struct iocb r3 = mkiocb(IOCB_CMD_PREAD, fd, buf + 60, 4, 25, 14);
    struct iocb *list[3] = { &r1, &r2, &r3 };
    show("io_submit 3 reads", io_submit(ctx, 3, list));
    struct io_event ev[4];
    struct timespec ts = { 5, 0 };
    long n = io_getevents(ctx, 3, 4, ev, &ts);
    show("io_getevents", n);
    for (long i = 0; i < n; i++)
        out("event data=%llu res=%s", (unsigned long long)ev[i].data, resname(ev[i].res));
    out("bytes: %.5s / %.5s", buf, buf + 10);
    struct timespec zero = { 0, 0 };
    show("io_getevents on an empty ring", io_getevents(ctx, 0, 4, ev, &zero));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
