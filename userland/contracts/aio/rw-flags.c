/* aio_rw_flags (RWF_*): RWF_APPEND writes at the end whatever the offset,
 * RWF_SYNC and RWF_DSYNC and RWF_HIPRI are accepted, RWF_NOWAIT on a tmpfs
 * file is what Linux 6.1 says. */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    write(fd, "0123456789", 10);
    struct iocb cb = mkiocb(IOCB_CMD_PWRITE, fd, "ab", 2, 0, 1);
    cb.aio_rw_flags = RWF_APPEND;
    try_submit("RWF_APPEND", ctx, &cb);
    reap_one("append", ctx, &cb);
    char buf[16] = { 0 };
    pread(fd, buf, 15, 0);
    out("file: %s", buf);
    int flags[] = { RWF_SYNC, RWF_DSYNC, RWF_HIPRI };
    const char *names[] = { "RWF_SYNC", "RWF_DSYNC", "RWF_HIPRI" };
    for (int i = 0; i < 3; i++) {
        cb = mkiocb(IOCB_CMD_PWRITE, fd, "x", 1, 3, 2);
        cb.aio_rw_flags = flags[i];
        try_submit(names[i], ctx, &cb);
        reap_one(names[i], ctx, &cb);
    }
    cb = mkiocb(IOCB_CMD_PREAD, fd, buf, 4, 0, 3);
    cb.aio_rw_flags = RWF_NOWAIT;
    try_submit("RWF_NOWAIT read of a tmpfs file", ctx, &cb);
    struct io_event ev;
    struct timespec ts = { 1, 0 };
    long n = io_getevents(ctx, 0, 1, &ev, &ts);
    show("events", n);
    if (n == 1)
        out("event: data=%llu res=%s", (unsigned long long)ev.data, resname(ev.res));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
