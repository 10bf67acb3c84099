/* SA_RESETHAND: after one delivery the disposition is SIG_DFL again, but
 * the flags and mask stay as they were (sigaction still reports
 * SA_SIGINFO), as Linux does. */
#include "common.h"

static volatile int hits;
static void on_usr1(int s, siginfo_t *si, void *c) { (void)s; (void)si; (void)c; hits++; }

int main(void)
{
    struct sigaction sa = { 0 }, old;
    sa.sa_sigaction = on_usr1;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    sigaction(SIGUSR1, NULL, &old);
    out("handler ran: %d", hits);
    out("disposition now SIG_DFL: %s", yesno(old.sa_handler == SIG_DFL));
    out("SA_SIGINFO kept: %s", yesno(old.sa_flags & SA_SIGINFO));
    out("SA_RESETHAND kept: %s", yesno(old.sa_flags & SA_RESETHAND));
    out("SA_RESTART kept: %s", yesno(old.sa_flags & SA_RESTART));
    out("mask kept: %s", yesno(sigismember(&old.sa_mask, SIGUSR2)));
    pid_t pid = fork();
    if (pid == 0) {
        raise(SIGUSR1);
        _exit(0);
    }
    reap("second SIGUSR1 (default action)", pid);
    return 0;
}
