/* signalfd: blocked signals in the mask are read as signalfd_siginfo
 * records (signo, code, sender pid and uid, sigqueue values, child
 * status) instead of being delivered; EAGAIN when none is pending and
 * the fd is nonblocking; a blocking read waits for one; poll and epoll
 * see pending signals; the mask can be replaced; argument errors. */
#include "common.h"
#include <poll.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

static void show_read(int fd, const char *label)
{
    struct signalfd_siginfo si;
    ssize_t n = read(fd, &si, sizeof si);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: %zd bytes, %s code %d pid-is-self %s uid %u int %d ptr %llu status %d", label, n, signame((int)si.ssi_signo),
        si.ssi_code, yesno(si.ssi_pid == (uint32_t)getpid()), si.ssi_uid, si.ssi_int, (unsigned long long)si.ssi_ptr, si.ssi_status);
}

int main(void)
{
    sigset_t mask, both;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGKILL);
    sigemptyset(&both);
    sigaddset(&both, SIGUSR1);
    sigaddset(&both, SIGUSR2);
    sigaddset(&both, SIGCHLD);
    sigaddset(&both, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &both, NULL);

    int fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    out("signalfd with SIGKILL in the mask: %s", yesno(fd >= 0));
    out("SFD_CLOEXEC: %s, SFD_NONBLOCK: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC), yesno(fcntl(fd, F_GETFL) & O_NONBLOCK));
    show_read(fd, "nothing pending");
    kill(getpid(), SIGUSR1);
    struct pollfd pf = {fd, POLLIN, 0};
    out("poll with SIGUSR1 pending: %d", poll(&pf, 1, 0));
    show_read(fd, "kill");
    out("poll after the read: %d", poll(&pf, 1, 0));
    sigset_t pending;
    sigpending(&pending);
    out("SIGUSR1 still pending: %s", yesno(sigismember(&pending, SIGUSR1)));

    union sigval sv = {.sival_int = 42};
    sigqueue(getpid(), SIGUSR1, sv);
    show_read(fd, "sigqueue");
    syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
    show_read(fd, "tgkill");

    kill(getpid(), SIGUSR2);
    show_read(fd, "SIGUSR2 (not in the mask)");
    out("same fd with a new mask: %s", yesno(signalfd(fd, &both, 0) == fd));
    show_read(fd, "SIGUSR2");

    /* Several records in one read; real-time signals queue. */
    sv.sival_int = 1;
    sigqueue(getpid(), SIGRTMIN, sv);
    sv.sival_int = 2;
    sigqueue(getpid(), SIGRTMIN, sv);
    struct signalfd_siginfo many[4];
    ssize_t n = read(fd, many, sizeof many);
    out("read of 4 records: %zd bytes, ints %d %d, same signal: %s", n, many[0].ssi_int, many[1].ssi_int,
        yesno(many[0].ssi_signo == (uint32_t)SIGRTMIN && many[1].ssi_signo == (uint32_t)SIGRTMIN));
    char small[64];
    out("read of 64 bytes: %s", read(fd, small, sizeof small) < 0 ? errname(errno) : "ok");

    /* A child's exit. */
    pid_t pid = fork();
    if (pid == 0)
        _exit(7);
    int blocking = signalfd(-1, &both, 0);
    struct signalfd_siginfo si;
    read(blocking, &si, sizeof si);
    out("child exit: %s code %s status %d pid-is-child %s", signame((int)si.ssi_signo), si.ssi_code == CLD_EXITED ? "CLD_EXITED" : "other",
        si.ssi_status, yesno(si.ssi_pid == (uint32_t)pid));
    waitpid(pid, NULL, 0);

    /* A blocking read waits until a signal comes. */
    pid = fork();
    if (pid == 0) {
        usleep(50000);
        kill(getppid(), SIGUSR2);
        _exit(0);
    }
    read(blocking, &si, sizeof si);
    out("blocking read: %s from the child: %s", signame((int)si.ssi_signo), yesno(si.ssi_pid == (uint32_t)pid));
    read(blocking, &si, sizeof si); /* the child's SIGCHLD */
    waitpid(pid, NULL, 0);

    /* epoll. */
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 5};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    out("epoll, nothing pending: %d", epoll_wait(ep, &ev, 1, 0));
    kill(getpid(), SIGUSR1);
    out("epoll, SIGUSR1 pending: %d", epoll_wait(ep, &ev, 1, 0));
    show_read(fd, "read");
    ev.events = EPOLLIN | EPOLLET;
    epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
    kill(getpid(), SIGUSR1);
    out("epoll ET, SIGUSR1 pending: %d", epoll_wait(ep, &ev, 1, 0));
    out("epoll ET again: %d", epoll_wait(ep, &ev, 1, 0));
    show_read(fd, "read");
    kill(getpid(), SIGUSR1);
    out("epoll ET, SIGUSR1 sent again: %d", epoll_wait(ep, &ev, 1, 0));
    show_read(fd, "read");

    /* Errors. */
    out("sizemask 4: %s", signalfd(-1, &mask, 0) >= 0 && syscall(SYS_signalfd4, -1, &mask, 4, 0) < 0 ? errname(errno) : "ok");
    out("flags 1: %s", syscall(SYS_signalfd4, -1, &mask, 8, 1) < 0 ? errname(errno) : "ok");
    int p[2];
    pipe(p);
    out("on a pipe: %s", syscall(SYS_signalfd4, p[0], &mask, 8, 0) < 0 ? errname(errno) : "ok");
    out("on a bad fd: %s", syscall(SYS_signalfd4, 99, &mask, 8, 0) < 0 ? errname(errno) : "ok");
    out("bad mask pointer: %s", syscall(SYS_signalfd4, -1, (void *)8, 8, 0) < 0 ? errname(errno) : "ok");
    out("write: %s", write(fd, &si, sizeof si) < 0 ? errname(errno) : "ok");
    return 0;
}
