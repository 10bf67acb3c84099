/* io_getevents: EINVAL for an unknown context, a negative min_nr or
 * min_nr > nr; EFAULT for a bad timeout or events pointer (the events
 * stay in the ring); a timeout with nothing to take returns 0 after it
 * passed; a zero timeout returns what is there. */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    struct io_event ev[4];
    struct timespec zero = { 0, 0 };
    show("unknown context", io_getevents(0x1000, 0, 1, ev, &zero));
    show("negative min_nr", io_getevents(ctx, -1, 1, ev, &zero));
    show("min_nr > nr", io_getevents(ctx, 2, 1, ev, &zero));
    show("negative nr", io_getevents(ctx, 0, -1, ev, &zero));
    show("bad timeout pointer", io_getevents(ctx, 0, 1, ev, (struct timespec *)8));
    show("nr 0", io_getevents(ctx, 0, 0, ev, &zero));

    struct timespec t = { 0, 200 * 1000000 };
    long long t0 = now_ns(CLOCK_MONOTONIC);
    show("wait 200 ms for 1", io_getevents(ctx, 1, 1, ev, &t));
    out("200 ms passed: %s", yesno(now_ns(CLOCK_MONOTONIC) - t0 >= 190 * 1000000LL));

    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char buf[4];
    struct iocb a = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 1);
    struct iocb b = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 2);
    struct iocb *list[2] = { &a, &b };
    show("submit 2", io_submit(ctx, 2, list));
    show("bad events pointer", io_getevents(ctx, 1, 2, (struct io_event *)8, &zero));
    show("take 1 of 2", io_getevents(ctx, 1, 1, ev, &zero));
    out("first: data=%llu", (unsigned long long)ev[0].data);
    show("take the rest", io_getevents(ctx, 0, 4, ev, NULL));
    out("second: data=%llu", (unsigned long long)ev[0].data);
    show("min_nr 0 with no timeout", io_getevents(ctx, 0, 4, ev, NULL));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
