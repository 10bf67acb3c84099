/* IOCB_CMD_FSYNC and IOCB_CMD_FDSYNC complete with 0 on a file; buffer,
 * length, offset or rw flags set are EINVAL, and a pipe (no fsync) is
 * EINVAL at submission. */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(4, &ctx));
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    write(fd, "x", 1);
    struct iocb cb = mkiocb(IOCB_CMD_FSYNC, fd, NULL, 0, 0, 5);
    try_submit("fsync", ctx, &cb);
    reap_one("fsync event", ctx, &cb);
    cb = mkiocb(IOCB_CMD_FDSYNC, fd, NULL, 0, 0, 6);
    try_submit("fdatasync", ctx, &cb);
    reap_one("fdatasync event", ctx, &cb);
    char b;
    cb = mkiocb(IOCB_CMD_FSYNC, fd, &b, 0, 0, 7);
    try_submit("fsync with a buffer", ctx, &cb);
    cb = mkiocb(IOCB_CMD_FSYNC, fd, NULL, 1, 0, 7);
    try_submit("fsync with a length", ctx, &cb);
    cb = mkiocb(IOCB_CMD_FSYNC, fd, NULL, 0, 4096, 7);
    try_submit("fsync with an offset", ctx, &cb);
    cb = mkiocb(IOCB_CMD_FDSYNC, fd, NULL, 0, 0, 7);
    cb.aio_rw_flags = RWF_SYNC;
    try_submit("fdatasync with rw flags", ctx, &cb);
    int p[2];
    pipe(p);
    cb = mkiocb(IOCB_CMD_FSYNC, p[1], NULL, 0, 0, 8);
    try_submit("fsync of a pipe", ctx, &cb);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
