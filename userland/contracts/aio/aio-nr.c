/* /proc/sys/fs/aio-nr counts the events io_setup asked for, of every live
 * context (given back by io_destroy and when the owner exits);
 * aio-max-nr (65536 by default) limits it: EAGAIN past it. */
#include "aio.h"
#include <sys/wait.h>

static long get(const char *name)
{
    char path[64], buf[32] = { 0 };
    snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    read(fd, buf, sizeof buf - 1);
    close(fd);
    return atol(buf);
}

int main(void)
{
    long base = get("aio-nr");
    out("aio-max-nr: %ld", get("aio-max-nr"));
    aio_context_t a = 0, b = 0, c = 0;
    check("io_setup 100", io_setup(100, &a));
    out("aio-nr grew by: %ld", get("aio-nr") - base);
    check("io_setup 28", io_setup(28, &b));
    out("aio-nr grew by: %ld", get("aio-nr") - base);
    check("io_destroy the first", io_destroy(a));
    out("aio-nr grew by: %ld", get("aio-nr") - base);

    pid_t pid = fork();
    if (pid == 0) {
        aio_context_t x = 0;
        io_setup(500, &x);
        _exit(0);
    }
    reap("child with a context", pid);
    out("after the child exited, grew by: %ld", get("aio-nr") - base);

    char limit[32];
    snprintf(limit, sizeof limit, "%ld\n", base + 28 + 10);
    check("write aio-max-nr", put_file("/proc/sys/fs/aio-max-nr", limit));
    check("io_setup 11 over the limit", io_setup(11, &c));
    check("io_setup 10 up to the limit", io_setup(10, &c));
    a = 0;
    check("io_setup 1 more", io_setup(1, &a));
    check("restore aio-max-nr", put_file("/proc/sys/fs/aio-max-nr", "65536\n"));
    check("io_destroy", io_destroy(b));
    check("io_destroy", io_destroy(c));
    out("aio-nr back: %s", yesno(get("aio-nr") == base));
    check("write aio-nr", put_file("/proc/sys/fs/aio-nr", "5\n"));
    return 0;
}
