/* pidfd: pidfd_open (flags, bad pids, a thread that is not a leader),
 * poll readiness when the process exits, pidfd_send_signal (flags,
 * siginfo rules, a reaped process), waitid(P_PIDFD), CLONE_PIDFD, and
 * what read/write/fstat/fdinfo show. */
#include "common.h"
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif

static long pidfd_open(pid_t pid, unsigned flags) { return syscall(SYS_pidfd_open, pid, flags); }
static long pidfd_send(int fd, int sig, void *info, unsigned flags) { return syscall(SYS_pidfd_send_signal, fd, sig, info, flags); }

static volatile pid_t thread_tid;
static void *thread_main(void *a) { (void)a; thread_tid = syscall(SYS_gettid); for (;;) pause(); return NULL; }

static const char *res(long r) { return r < 0 ? errname(errno) : "ok"; }

int main(void)
{
    out("bad flags: %s", res(pidfd_open(getpid(), 1)));
    out("pid 0: %s", res(pidfd_open(0, 0)));
    out("pid -1: %s", res(pidfd_open(-1, 0)));
    out("no such pid: %s", res(pidfd_open(4000000, 0)));

    pthread_t t;
    pthread_create(&t, NULL, thread_main, NULL);
    while (!thread_tid)
        sched_yield();
    out("a thread that is not the leader: %s", res(pidfd_open(thread_tid, 0)));

    int self = pidfd_open(getpid(), 0);
    out("own pid: %s, close-on-exec: %s", self >= 0 ? "ok" : errname(errno), yesno(fcntl(self, F_GETFD) & FD_CLOEXEC));
    char buf[8];
    out("read: %s", res(read(self, buf, 8)));
    out("write: %s", res(write(self, buf, 8)));
    struct stat st;
    fstat(self, &st);
    out("fstat mode: 0%o", st.st_mode);
    char path[64], link[64] = { 0 };
    snprintf(path, sizeof path, "/proc/self/fd/%d", self);
    readlink(path, link, sizeof link - 1);
    out("link: %s", link);
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", self);
    char info[512] = { 0 };
    int fi = open(path, O_RDONLY);
    read(fi, info, sizeof info - 1);
    char want[32];
    snprintf(want, sizeof want, "Pid:\t%d\n", getpid());
    out("fdinfo names the pid: %s", yesno(strstr(info, want) != NULL));
    out("signal 0 to self: %s", res(pidfd_send(self, 0, NULL, 0)));
    out("bad flags: %s", res(pidfd_send(self, 0, NULL, 1)));
    out("bad signal: %s", res(pidfd_send(self, 65, NULL, 0)));
    out("not a pidfd: %s", res(pidfd_send(fi, 0, NULL, 0)));
    out("closed fd: %s", res(pidfd_send(1000, 0, NULL, 0)));

    /* A child: poll before and after it exits; signal it; wait on it. */
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(p[1]);
        read(p[0], &c, 1);
        _exit(7);
    }
    close(p[0]);
    int fd = pidfd_open(pid, O_NONBLOCK);
    struct pollfd pf = { .fd = fd, .events = POLLIN };
    out("poll while running: %d", poll(&pf, 1, 0));
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN }, got;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGUSR1;
    si.si_code = SI_QUEUE;
    out("siginfo with another signal number: %s", res(pidfd_send(fd, SIGUSR2, &si, 0)));
    si.si_code = SI_USER;
    out("made-up SI_USER siginfo for another process: %s", res(pidfd_send(fd, SIGUSR1, &si, 0)));
    out("waitid WNOHANG while running: %s", res(waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG)));
    write(p[1], "x", 1);
    pf.revents = 0;
    int ready = poll(&pf, 1, 5000);
    out("poll after exit: %d, revents POLLIN: %s", ready, yesno(pf.revents & POLLIN));
    out("epoll after exit: %d", epoll_wait(ep, &got, 1, 5000));
    out("signal 0 to the zombie: %s", res(pidfd_send(fd, 0, NULL, 0)));
    memset(&si, 0, sizeof si);
    int r = waitid(P_PIDFD, fd, &si, WEXITED);
    out("waitid P_PIDFD: %s, code %s, status %d, pid matches %s", res(r), si.si_code == CLD_EXITED ? "CLD_EXITED" : "other", si.si_status, yesno(si.si_pid == pid));
    out("signal after reaping: %s", res(pidfd_send(fd, SIGTERM, NULL, 0)));
    out("waitid again: %s", res(waitid(P_PIDFD, fd, &si, WEXITED)));
    out("waitid with a negative fd: %s", res(waitid(P_PIDFD, -1, &si, WEXITED)));

    /* pidfd_send_signal kills a child. */
    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    fd = pidfd_open(pid, 0);
    out("SIGTERM through the pidfd: %s", res(pidfd_send(fd, SIGTERM, NULL, 0)));
    reap("child", pid);

    /* CLONE_PIDFD through clone(2). */
    int cfd = -5;
    long c = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &cfd, 0, 0);
    if (c == 0)
        _exit(3);
    out("clone CLONE_PIDFD: %s, fd set: %s, close-on-exec: %s", res(c), yesno(cfd >= 0), yesno(cfd >= 0 && (fcntl(cfd, F_GETFD) & FD_CLOEXEC)));
    memset(&si, 0, sizeof si);
    r = waitid(P_PIDFD, cfd, &si, WEXITED);
    out("waitid on it: %s, status %d", res(r), si.si_status);
    c = syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &cfd, 0, 0);
    out("CLONE_PIDFD with CLONE_PARENT_SETTID: %s", res(c));
    c = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, (void *)8, 0, 0);
    out("CLONE_PIDFD with a bad pointer: %s", res(c));
    if (c == 0)
        _exit(0);
    return 0;
}
