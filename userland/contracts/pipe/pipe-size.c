/* F_GETPIPE_SZ/F_SETPIPE_SZ: 64 KiB default, sizes round up to a power of
 * two pages, below a page gives a page, and the new size is the capacity. */
#include "common.h"

int main(void)
{
    int p[2];
    pipe2(p, O_NONBLOCK);
    show("default size", fcntl(p[0], F_GETPIPE_SZ));
    show("set 100000", fcntl(p[1], F_SETPIPE_SZ, 100000));
    show("get", fcntl(p[0], F_GETPIPE_SZ));
    show("set 0", fcntl(p[1], F_SETPIPE_SZ, 0));
    show("set 4096", fcntl(p[1], F_SETPIPE_SZ, 4096));
    char buf[8192];
    memset(buf, 'y', sizeof buf);
    long total = 0;
    ssize_t n;
    while ((n = write(p[1], buf, 512)) > 0)
        total += n;
    out("capacity at 4096: %ld", total);
    show("shrink below the queued data", fcntl(p[1], F_SETPIPE_SZ, 0) >= 0 ? 0 : -1);
    show("set -1", fcntl(p[1], F_SETPIPE_SZ, -1));
    int fd = open("f", O_CREAT | O_RDWR, 0644);
    show("F_GETPIPE_SZ on a file", fcntl(fd, F_GETPIPE_SZ));
    return 0;
}
