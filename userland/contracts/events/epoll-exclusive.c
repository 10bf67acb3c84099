/* EPOLLEXCLUSIVE: several processes, each with its own epoll instance
 * watching the same pipe with EPOLLIN | EPOLLEXCLUSIVE and asleep in
 * epoll_wait; one write wakes exactly one of them (the others time out).
 * Without EPOLLEXCLUSIVE every one of them wakes. Also eventfd, and the
 * exclusive entry still reports when its instance is polled later. */
#include "common.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>

#define WAITERS 4

/* Returns whether `pid` sleeps (state S in /proc/PID/stat). */
static int asleep(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'S';
}

/* Starts WAITERS children that each wait on `fd` (with `flags`), then
 * makes `fd` readable once with `trigger`; returns how many children saw
 * an event. */
static int woken(int fd, uint32_t flags, void (*trigger)(void))
{
    int ready[2], results[2];
    pipe(ready);
    pipe(results);
    pid_t pids[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            int ep = epoll_create1(0);
            struct epoll_event ev = {.events = EPOLLIN | flags, .data.u32 = 7};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
                _exit(1);
            write(ready[1], "r", 1);
            int n = epoll_wait(ep, &ev, 1, 1500);
            write(results[1], n == 1 && ev.data.u32 == 7 ? "1" : "0", 1);
            _exit(0);
        }
    }
    char c;
    for (int i = 0; i < WAITERS; i++)
        read(ready[0], &c, 1);
    /* Every child asleep in epoll_wait before the event. */
    for (int i = 0; i < WAITERS; i++)
        for (int tries = 0; tries < 500 && !asleep(pids[i]); tries++)
            usleep(10000);
    usleep(100000);
    trigger();
    int count = 0;
    for (int i = 0; i < WAITERS; i++) {
        read(results[0], &c, 1);
        count += c == '1';
    }
    for (int i = 0; i < WAITERS; i++)
        waitpid(pids[i], NULL, 0);
    close(ready[0]);
    close(ready[1]);
    close(results[0]);
    close(results[1]);
    return count;
}

static int p[2];
static int efd;

static void write_pipe(void) { write(p[1], "x", 1); }

static void write_eventfd(void)
{
    uint64_t one = 1;
    write(efd, &one, 8);
}

int main(void)
{
    pipe(p);
    out("pipe, EPOLLEXCLUSIVE: %d of %d woke", woken(p[0], EPOLLEXCLUSIVE, write_pipe), WAITERS);
    char buf[16];
    read(p[0], buf, sizeof buf);
    out("pipe, not exclusive: %d of %d woke", woken(p[0], 0, write_pipe), WAITERS);
    read(p[0], buf, sizeof buf);

    efd = eventfd(0, EFD_NONBLOCK);
    out("eventfd, EPOLLEXCLUSIVE: %d of %d woke", woken(efd, EPOLLEXCLUSIVE, write_eventfd), WAITERS);
    uint64_t v;
    read(efd, &v, 8);
    out("eventfd, not exclusive: %d of %d woke", woken(efd, 0, write_eventfd), WAITERS);
    read(efd, &v, 8);

    /* No one waiting: an exclusive entry is queued all the same, and every
     * instance sees the file ready when it looks. */
    int ep1 = epoll_create1(0), ep2 = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE};
    epoll_ctl(ep1, EPOLL_CTL_ADD, p[0], &ev);
    epoll_ctl(ep2, EPOLL_CTL_ADD, p[0], &ev);
    write(p[1], "y", 1);
    out("nobody waiting, first instance: %d", epoll_wait(ep1, &ev, 1, 0));
    out("nobody waiting, second instance: %d", epoll_wait(ep2, &ev, 1, 0));
    out("level-triggered, again: %d", epoll_wait(ep1, &ev, 1, 0));
    return 0;
}
