/* The temporary signal masks of ppoll, pselect6 and epoll_pwait: SIGKILL
 * and SIGSTOP can never be blocked by them (a task waiting with SIGKILL in
 * its mask still dies), a sigset size other than 8 is EINVAL, and
 * pselect6's mask is applied (a SIGCHLD blocked outside the wait runs its
 * handler during it, as `make -j` relies on). */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include "common.h"

static volatile sig_atomic_t got_chld;
static void on_chld(int s) { (void)s; got_chld = 1; }

/* A child that waits forever in `how` with every signal in the wait's
 * mask; the parent SIGKILLs (then, for the second round, SIGSTOPs) it. */
static void wait_all_blocked(int how)
{
    sigset_t all;
    sigfillset(&all);
    int p[2];
    if (pipe(p))
        _exit(2);
    struct pollfd pfd = { .fd = p[0], .events = POLLIN };
    if (how == 0) {
        syscall(SYS_ppoll, &pfd, 1, NULL, &all, 8);
    } else if (how == 1) {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(p[0], &r);
        struct { const sigset_t *ss; size_t len; } arg = { &all, 8 };
        syscall(SYS_pselect6, p[0] + 1, &r, NULL, NULL, NULL, &arg);
    } else {
        int ep = epoll_create1(0);
        struct epoll_event ev = { .events = EPOLLIN };
        epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
        syscall(SYS_epoll_pwait, ep, &ev, 1, -1, &all, 8);
    }
    _exit(3);
}

int main(void)
{
    const char *names[] = { "ppoll", "pselect6", "epoll_pwait" };
    for (int how = 0; how < 3; how++) {
        pid_t pid = fork();
        if (pid == 0)
            wait_all_blocked(how);
        msleep(100);
        kill(pid, SIGKILL);
        char label[64];
        snprintf(label, sizeof label, "%s with SIGKILL in its mask, then SIGKILL", names[how]);
        reap(label, pid);

        pid = fork();
        if (pid == 0)
            wait_all_blocked(how);
        msleep(100);
        kill(pid, SIGSTOP);
        int st;
        pid_t r = waitpid(pid, &st, WUNTRACED);
        out("%s with SIGSTOP in its mask, then SIGSTOP: %s", names[how], r == pid ? wstatus(st) : errname(errno));
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }

    /* Wrong sigset sizes. */
    sigset_t none;
    sigemptyset(&none);
    struct timespec zero = { 0, 0 };
    errno = 0;
    long r = syscall(SYS_ppoll, NULL, 0, &zero, &none, 4);
    out("ppoll sigsetsize 4: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_ppoll, NULL, 0, &zero, &none, 16);
    out("ppoll sigsetsize 16: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_ppoll, NULL, 0, &zero, NULL, 4);
    out("ppoll no mask, sigsetsize 4: %s", r < 0 ? errname(errno) : "ok");
    struct { const sigset_t *ss; size_t len; } arg = { &none, 4 };
    r = syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &arg);
    out("pselect6 ss_len 4: %s", r < 0 ? errname(errno) : "ok");
    arg.ss = NULL;
    r = syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &arg);
    out("pselect6 no mask, ss_len 4: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, (void *)8);
    out("pselect6 bad argument pointer: %s", r < 0 ? errname(errno) : "ok");

    /* pselect6 applies its mask: SIGCHLD blocked outside, empty inside. */
    struct sigaction sa = { .sa_handler = on_chld };
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    msleep(50);
    struct timespec five = { 5, 0 };
    arg.ss = &none;
    arg.len = 8;
    errno = 0;
    r = syscall(SYS_pselect6, 0, NULL, NULL, NULL, &five, &arg);
    out("pselect6 with SIGCHLD unblocked inside: %s, handler ran: %s", r < 0 ? errname(errno) : "returned", yesno(got_chld));
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    out("SIGCHLD blocked again after: %s", yesno(sigismember(&now, SIGCHLD)));
    waitpid(pid, NULL, 0);

    got_chld = 0;
    pid = fork();
    if (pid == 0)
        _exit(0);
    msleep(50);
    struct pollfd none_fd = { .fd = -1 };
    r = syscall(SYS_ppoll, &none_fd, 1, &five, &none, 8);
    out("ppoll with SIGCHLD unblocked inside: %s, handler ran: %s", r < 0 ? errname(errno) : "returned", yesno(got_chld));
    waitpid(pid, NULL, 0);
    return 0;
}
