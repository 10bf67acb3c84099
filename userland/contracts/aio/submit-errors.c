/* io_submit's errors: an unknown context or a negative count is EINVAL,
 * 0 iocbs is 0; for each iocb (the first one failing is the call's error,
 * a later one ends the batch with the count so far): bad pointers EFAULT,
 * bad fd EBADF, unknown opcodes and reserved fields EINVAL, access mode
 * EBADF, negative offset EINVAL, a directory EINVAL, unknown RWF_* flags
 * EOPNOTSUPP, a bad resfd EBADF or EINVAL (not an eventfd). */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    int ro = open("f", O_RDONLY);
    int wo = open("f", O_WRONLY);
    mkdir("d", 0755);
    int dir = open("d", O_RDONLY | O_DIRECTORY);
    char buf[16];
    struct iocb ok = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, 0, 1);
    struct iocb *list[3] = { &ok, &ok, NULL };

    show("unknown context", io_submit(0x1000, 1, list));
    show("negative count", io_submit(ctx, -1, list));
    show("zero count", io_submit(ctx, 0, list));
    show("bad array", io_submit(ctx, 1, (struct iocb **)8));
    show("bad iocb pointer", io_submit(ctx, 1, (struct iocb *[]){ (struct iocb *)8 }));

    struct iocb cb;
    cb = mkiocb(IOCB_CMD_PREAD, 999, buf, 16, 0, 1);
    try_submit("bad fd", ctx, &cb);
    int ops[] = { 4, IOCB_CMD_NOOP, 9, 100 };
    for (int i = 0; i < 4; i++) {
        char label[32];
        snprintf(label, sizeof label, "opcode %d", ops[i]);
        cb = mkiocb(ops[i], fd, buf, 16, 0, 1);
        try_submit(label, ctx, &cb);
    }
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, 0, 1);
    cb.aio_reserved2 = 1;
    try_submit("aio_reserved2 set", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, (size_t)-1, 0, 1);
    try_submit("negative nbytes", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, wo, buf, 16, 0, 1);
    try_submit("read of O_WRONLY", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PWRITE, ro, buf, 16, 0, 1);
    try_submit("write of O_RDONLY", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, -1, 1);
    try_submit("negative offset", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, 0x7ffffffffffffff8LL, 1);
    try_submit("offset + count overflows", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, dir, buf, 16, 0, 1);
    try_submit("read of a directory", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, (void *)0xffff800000000000UL, 16, 0, 1);
    try_submit("kernel buffer", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, 0, 1);
    cb.aio_rw_flags = 0x100;
    try_submit("unknown rw flag", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, 0, 1);
    cb.aio_flags = IOCB_FLAG_RESFD;
    cb.aio_resfd = 999;
    try_submit("bad resfd", ctx, &cb);
    cb.aio_resfd = fd;
    try_submit("resfd not an eventfd", ctx, &cb);
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 16, 0, 1);
    cb.aio_flags = IOCB_FLAG_IOPRIO;
    cb.aio_reqprio = (7 << 13);
    try_submit("bad ioprio class", ctx, &cb);

    struct iocb bad = mkiocb(IOCB_CMD_NOOP, fd, buf, 16, 0, 1);
    struct iocb *partial[3] = { &ok, &ok, &bad };
    show("two good then a bad one", io_submit(ctx, 3, partial));
    struct io_event ev[4];
    struct timespec ts = { 5, 0 };
    show("events of the partial batch", io_getevents(ctx, 2, 4, ev, &ts));
    struct timespec zero = { 0, 0 };
    show("nothing else", io_getevents(ctx, 0, 4, ev, &zero));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
