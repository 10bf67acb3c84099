/* IOCB_FLAG_RESFD: each completion adds 1 to the eventfd aio_resfd names,
 * after the event is in the ring; a waiting poll request signals it when
 * it completes. */
#include "aio.h"
#include <sys/eventfd.h>
#include <poll.h>

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int efd = eventfd(0, EFD_NONBLOCK);
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char buf[8] = "abcdefg";
    struct iocb cbs[3];
    struct iocb *list[3];
    for (int i = 0; i < 3; i++) {
        cbs[i] = mkiocb(IOCB_CMD_PWRITE, fd, buf, 8, i * 8, i);
        cbs[i].aio_flags = IOCB_FLAG_RESFD;
        cbs[i].aio_resfd = efd;
        list[i] = &cbs[i];
    }
    show("io_submit 3", io_submit(ctx, 3, list));
    uint64_t v = 0;
    show("eventfd read", read(efd, &v, 8));
    out("eventfd count: %llu", (unsigned long long)v);
    struct io_event ev[3];
    struct timespec zero = { 0, 0 };
    show("events", io_getevents(ctx, 0, 3, ev, &zero));

    int p[2];
    pipe(p);
    struct iocb pc = mkiocb(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLIN, 0, 0, 9);
    pc.aio_flags = IOCB_FLAG_RESFD;
    pc.aio_resfd = efd;
    try_submit("poll with resfd", ctx, &pc);
    errno = 0;
    show("eventfd before the pipe is written", read(efd, &v, 8));
    write(p[1], "x", 1);
    struct pollfd pfd = { efd, POLLIN, 0 };
    show("poll eventfd", poll(&pfd, 1, 5000));
    show("eventfd read", read(efd, &v, 8));
    out("eventfd count: %llu", (unsigned long long)v);
    reap_one("poll event", ctx, &pc);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
