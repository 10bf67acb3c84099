/* sigsuspend atomically replaces the mask and waits: a signal blocked
 * before is delivered inside, sigsuspend returns -1 EINTR, and the old
 * mask is back afterwards. */
#include "common.h"

static volatile int got;
static void h(int s) { got = s; }

int main(void)
{
    signal(SIGUSR1, h);
    sigset_t block, empty, cur;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, NULL);
    pid_t me = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        msleep(50);
        kill(me, SIGUSR1);
        _exit(0);
    }
    sigemptyset(&empty);
    errno = 0;
    int r = sigsuspend(&empty);
    out("sigsuspend: %d %s, handler got %s", r, errname(errno), signame(got));
    sigprocmask(SIG_SETMASK, NULL, &cur);
    out("mask restored (SIGUSR1 blocked): %s", yesno(sigismember(&cur, SIGUSR1)));
    reap("child", pid);
    /* A signal already pending when sigsuspend unblocks it: returns at once. */
    got = 0;
    raise(SIGUSR1);
    r = sigsuspend(&empty);
    out("pending before sigsuspend: %d %s, got %s", r, errname(errno), signame(got));
    /* A caught SIGCHLD wakes it; SIGCHLD is blocked until sigsuspend so it
     * cannot arrive before the wait starts. */
    signal(SIGCHLD, h);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    pid = fork();
    if (pid == 0)
        _exit(0);
    got = 0;
    sigset_t only_chld;
    sigfillset(&only_chld);
    sigdelset(&only_chld, SIGCHLD);
    sigsuspend(&only_chld);
    out("woken by: %s", signame(got));
    reap("child", pid);
    return 0;
}
