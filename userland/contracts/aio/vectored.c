/* IOCB_CMD_PWRITEV and IOCB_CMD_PREADV: aio_buf is an iovec array and
 * aio_nbytes its length; the event's result is the total moved. More than
 * UIO_MAXIOV vectors is EINVAL at submission. */
#include "aio.h"
#include <sys/uio.h>

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char a[] = "abc", b[] = "defgh";
    struct iovec wv[2] = { { a, 3 }, { b, 5 } };
    struct iocb w = mkiocb(IOCB_CMD_PWRITEV, fd, wv, 2, 4, 1);
    try_submit("pwritev", ctx, &w);
    reap_one("pwritev event", ctx, &w);
    char x[2] = { 0 }, y[20] = { 0 };
    struct iovec rv[2] = { { x, 2 }, { y, 20 } };
    struct iocb r = mkiocb(IOCB_CMD_PREADV, fd, rv, 2, 4, 2);
    try_submit("preadv", ctx, &r);
    reap_one("preadv event", ctx, &r);
    out("read: %.2s|%s", x, y);
    struct iocb big = mkiocb(IOCB_CMD_PREADV, fd, rv, 1025, 0, 3);
    try_submit("preadv 1025 vectors", ctx, &big);
    struct iocb bad = mkiocb(IOCB_CMD_PREADV, fd, (void *)8, 1, 0, 4);
    try_submit("preadv bad iovec array", ctx, &bad);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
