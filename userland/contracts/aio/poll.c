/* IOCB_CMD_POLL (Linux 4.18+): a file already ready completes at once with
 * the ready events; otherwise the request waits and completes when the
 * file becomes ready (one shot); a regular file is always readable and
 * writable, and a poll for other events on it is EINVAL. Events must fit
 * 16 bits, offset, length and rw flags must be 0. */
#include "aio.h"
#include <poll.h>

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int p[2];
    pipe(p);
    struct io_event ev;
    struct timespec zero = { 0, 0 };

    struct iocb w = mkiocb(IOCB_CMD_POLL, p[1], (void *)(uintptr_t)(POLLOUT | POLLIN), 0, 0, 1);
    try_submit("poll write end for POLLOUT", ctx, &w);
    reap_one("ready at once", ctx, &w);

    struct iocb r = mkiocb(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLIN, 0, 0, 2);
    try_submit("poll empty read end", ctx, &r);
    show("no event yet", io_getevents(ctx, 0, 1, &ev, &zero));
    write(p[1], "x", 1);
    reap_one("after a write", ctx, &r);
    show("one shot: nothing more", io_getevents(ctx, 0, 1, &ev, &zero));

    struct iocb h = mkiocb(IOCB_CMD_POLL, p[0], (void *)(uintptr_t)POLLPRI, 0, 0, 3);
    char c;
    read(p[0], &c, 1);
    try_submit("poll read end for POLLPRI", ctx, &h);
    close(p[1]);
    reap_one("after the writer closed (POLLHUP)", ctx, &h);

    int fd = open("f", O_RDWR | O_CREAT, 0644);
    struct iocb f = mkiocb(IOCB_CMD_POLL, fd, (void *)(uintptr_t)(POLLIN | POLLOUT | POLLPRI), 0, 0, 4);
    try_submit("poll regular file", ctx, &f);
    reap_one("regular file", ctx, &f);
    f = mkiocb(IOCB_CMD_POLL, fd, (void *)(uintptr_t)POLLPRI, 0, 0, 5);
    try_submit("poll regular file for POLLPRI", ctx, &f);
    f = mkiocb(IOCB_CMD_POLL, fd, (void *)0x10000, 0, 0, 6);
    try_submit("events past 16 bits", ctx, &f);
    f = mkiocb(IOCB_CMD_POLL, fd, (void *)(uintptr_t)POLLIN, 1, 0, 6);
    try_submit("poll with a length", ctx, &f);
    f = mkiocb(IOCB_CMD_POLL, fd, (void *)(uintptr_t)POLLIN, 0, 8, 6);
    try_submit("poll with an offset", ctx, &f);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
