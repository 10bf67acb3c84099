/* eventfd: the counter (reads take it all), semaphore mode (reads take
 * one), EAGAIN when nonblocking and nothing can happen, EINVAL for short
 * buffers and the value 2^64-1, the flags, poll readiness, and a blocked
 * read woken by another process's write. */
#include "common.h"
#include <poll.h>
#include <sys/eventfd.h>

static void rd(const char *label, int fd)
{
    uint64_t v = 0;
    ssize_t r = read(fd, &v, sizeof v);
    if (r < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %zd bytes, %llu", label, r, (unsigned long long)v);
}

static void wr(const char *label, int fd, uint64_t v)
{
    ssize_t r = write(fd, &v, sizeof v);
    if (r < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %zd", label, r);
}

static void show_poll(const char *label, int fd)
{
    struct pollfd p = {fd, POLLIN | POLLOUT, 0};
    int n = poll(&p, 1, 0);
    out("%s: %d%s%s%s", label, n, p.revents & POLLIN ? " IN" : "", p.revents & POLLOUT ? " OUT" : "",
        p.revents & POLLERR ? " ERR" : "");
}

int main(void)
{
    int fd = eventfd(3, EFD_NONBLOCK);
    show_poll("poll with 3", fd);
    rd("read", fd);
    show_poll("poll with 0", fd);
    rd("read at 0", fd);
    wr("write 2", fd, 2);
    wr("write 5", fd, 5);
    rd("read", fd);
    wr("write 0", fd, 0);
    rd("read after writing 0", fd);

    char small[4];
    out("read 4 bytes: %s", read(fd, small, 4) < 0 ? errname(errno) : "ok");
    out("write 4 bytes: %s", write(fd, small, 4) < 0 ? errname(errno) : "ok");
    uint64_t big[2] = {9, 99};
    ssize_t n = write(fd, big, 16);
    out("write 16 bytes: %zd %s", n, n < 0 ? errname(errno) : "");
    n = read(fd, big, 16);
    out("read 16 bytes: %zd %s", n, n < 0 ? errname(errno) : "");
    out("value read: %llu", (unsigned long long)big[0]);
    wr("write 2^64-1", fd, UINT64_MAX);
    wr("write 2^64-2", fd, UINT64_MAX - 1);
    show_poll("poll at the maximum", fd);
    wr("write 1 more", fd, 1);
    rd("read the maximum", fd);
    close(fd);

    fd = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
    rd("semaphore read", fd);
    rd("semaphore read", fd);
    rd("semaphore read", fd);
    rd("semaphore read", fd);
    wr("semaphore write 2", fd, 2);
    rd("semaphore read", fd);
    close(fd);

    out("eventfd2 with flag 4: %s", syscall(SYS_eventfd2, 0, 4) < 0 ? errname(errno) : "ok");
    fd = eventfd(0, EFD_CLOEXEC);
    out("EFD_CLOEXEC sets FD_CLOEXEC: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    out("O_NONBLOCK without EFD_NONBLOCK: %s", yesno(fcntl(fd, F_GETFL) & O_NONBLOCK));
    out("access mode O_RDWR: %s", yesno((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR));
    struct stat st;
    fstat(fd, &st);
    out("fstat mode: %o", (unsigned)st.st_mode);
    out("lseek: %s", lseek(fd, 0, SEEK_SET) < 0 ? errname(errno) : "ok");
    int old = (int)syscall(SYS_eventfd, 5);
    rd("eventfd (old call) read", old);

    /* A blocked read wakes when another process writes. */
    pid_t pid = fork();
    if (pid == 0) {
        usleep(50000);
        uint64_t v = 42;
        write(fd, &v, sizeof v);
        _exit(0);
    }
    rd("blocking read", fd);
    reap("writer", pid);

    /* The counter is shared across fork; select sees it. */
    uint64_t one = 1;
    write(fd, &one, sizeof one);
    fd_set r;
    FD_ZERO(&r);
    FD_SET(fd, &r);
    struct timeval tv = {0, 0};
    out("select readable: %d", select(fd + 1, &r, NULL, NULL, &tv));
    return 0;
}
