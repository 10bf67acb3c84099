/* A buffer in user space that is not mapped is no submission error: the
 * request completes with EFAULT in its event. */
#include "aio.h"
#include <sys/mman.h>

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    write(fd, "0123456789", 10);
    char *hole = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(hole, 4096);
    struct iocb r = mkiocb(IOCB_CMD_PREAD, fd, hole, 10, 0, 1);
    try_submit("pread into an unmapped page", ctx, &r);
    reap_one("pread event", ctx, &r);
    struct iocb w = mkiocb(IOCB_CMD_PWRITE, fd, hole, 10, 0, 2);
    try_submit("pwrite from an unmapped page", ctx, &w);
    reap_one("pwrite event", ctx, &w);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
