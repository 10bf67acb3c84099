/* epoll's errors: EINVAL (bad sizes and flags, an fd that is not an epoll
 * instance, adding an instance to itself, unknown ops, EPOLLEXCLUSIVE
 * misuse, maxevents <= 0), EEXIST, ENOENT, EBADF, EPERM (regular files),
 * ELOOP (cycles and nesting too deep), EFAULT. */
#include "common.h"
#include <sys/epoll.h>

static void r(const char *label, int ret)
{
    if (ret < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %d", label, ret);
}

int main(void)
{
    /* musl's epoll_create ignores the size: call the kernel's. */
    r("epoll_create(0)", (int)syscall(SYS_epoll_create, 0));
    r("epoll_create(-1)", (int)syscall(SYS_epoll_create, -1));
    int ep0 = (int)syscall(SYS_epoll_create, 1);
    out("epoll_create(1) works: %s", yesno(ep0 >= 0));
    r("epoll_create1(1)", epoll_create1(1));
    r("epoll_create1(O_NONBLOCK)", epoll_create1(O_NONBLOCK));

    int ep = epoll_create1(0);
    int p[2];
    pipe(p);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
    r("add", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
    r("add twice", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
    r("mod unknown fd", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev));
    r("del unknown fd", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], &ev));
    r("unknown op 7", epoll_ctl(ep, 7, p[0], &ev));
    r("add to itself", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
    r("bad epfd", epoll_ctl(99, EPOLL_CTL_ADD, p[0], &ev));
    r("bad fd", epoll_ctl(ep, EPOLL_CTL_ADD, 99, &ev));
    r("epfd not an epoll fd", epoll_ctl(p[1], EPOLL_CTL_ADD, p[0], &ev));
    int reg = open("/tmp/epoll-regular", O_RDWR | O_CREAT | O_TRUNC, 0600);
    r("regular file", epoll_ctl(ep, EPOLL_CTL_ADD, reg, &ev));
    r("regular file as epfd", epoll_ctl(reg, EPOLL_CTL_ADD, p[0], &ev));
    int dir = open("/", O_RDONLY | O_DIRECTORY);
    r("directory", epoll_ctl(ep, EPOLL_CTL_ADD, dir, &ev));
    r("bad event pointer", (int)syscall(SYS_epoll_ctl, ep, EPOLL_CTL_MOD, p[0], (void *)8));
    r("del ignores the event pointer", (int)syscall(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, p[0], (void *)8));
    r("add back", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));

    /* EPOLLEXCLUSIVE: only with ADD, only with some events, never on an
     * epoll fd; an exclusive entry cannot be modified. */
    struct epoll_event ex = {.events = EPOLLIN | EPOLLEXCLUSIVE};
    r("exclusive add", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ex));
    r("mod an exclusive entry", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev));
    r("mod with EPOLLEXCLUSIVE", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ex));
    r("del an exclusive entry", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL));
    ex.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT;
    r("exclusive with oneshot", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ex));
    ex.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLRDHUP;
    r("exclusive with rdhup", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ex));
    ex.events = EPOLLIN | EPOLLEXCLUSIVE;
    int inner = epoll_create1(0);
    r("exclusive on an epoll fd", epoll_ctl(ep, EPOLL_CTL_ADD, inner, &ex));

    /* Loops and depth. */
    r("add inner", epoll_ctl(ep, EPOLL_CTL_ADD, inner, &ev));
    r("add outer to inner (a loop)", epoll_ctl(inner, EPOLL_CTL_ADD, ep, &ev));
    int chain[7];
    for (int i = 0; i < 7; i++)
        chain[i] = epoll_create1(0);
    for (int i = 1; i < 7; i++) {
        char label[64];
        snprintf(label, sizeof label, "nest level %d", i);
        r(label, epoll_ctl(chain[i], EPOLL_CTL_ADD, chain[i - 1], &ev));
    }

    /* epoll_wait. */
    struct epoll_event out_ev[4];
    r("maxevents 0", epoll_wait(ep, out_ev, 0, 0));
    r("maxevents -1", epoll_wait(ep, out_ev, -1, 0));
    r("maxevents too large", epoll_wait(ep, out_ev, 0x7fffffff, 0));
    r("wait on a pipe", epoll_wait(p[0], out_ev, 4, 0));
    r("wait on a bad fd", epoll_wait(99, out_ev, 4, 0));
    r("wait with a kernel buffer", (int)syscall(SYS_epoll_wait, ep, (void *)0xffffffff80000000UL, 4, 0));
    r("pwait with sigsetsize 4", (int)syscall(SYS_epoll_pwait, ep, out_ev, 4, 0, out_ev, 4));
    struct timespec bad = {0, 1000000000};
    r("pwait2 with a bad timeout", (int)syscall(441, ep, out_ev, 4, &bad, NULL, 8));
    write(p[1], "x", 1);
    r("wait into an unmapped buffer", (int)syscall(SYS_epoll_wait, ep, (void *)8, 4, 0));
    r("read an epoll fd", (int)read(ep, out_ev, sizeof out_ev));
    r("write an epoll fd", (int)write(ep, "x", 1));
    unlink("/tmp/epoll-regular");
    return 0;
}
