/* Raising a signal inside a handler: a signal in sa_mask is held until the
 * handler returns, one not masked runs nested at once. Signals pending
 * together are delivered lowest number first. */
#include "common.h"

static char log_[128];
static void note(const char *s) { strncat(log_, s, sizeof log_ - strlen(log_) - 1); }

static void h_usr2(int s) { (void)s; note("usr2 "); }
static void h_usr1(int s)
{
    (void)s;
    note("usr1-begin ");
    raise(SIGUSR2);
    note("usr1-end ");
}
static void h_any(int s)
{
    char b[48];
    snprintf(b, sizeof b, "%s ", signame(s));
    note(b);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    sa.sa_handler = h_usr1;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("USR2 masked in USR1 handler: %s", log_);
    log_[0] = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("USR2 not masked: %s", log_);

    log_[0] = 0;
    sa.sa_handler = h_any;
    sigemptyset(&sa.sa_mask);
    sigfillset(&sa.sa_mask);
    int sigs[] = {SIGTERM, SIGHUP, SIGUSR2, SIGALRM, SIGUSR1, SIGINT};
    for (int i = 0; i < 6; i++)
        sigaction(sigs[i], &sa, NULL);
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < 6; i++)
        raise(sigs[i]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    out("delivery order of pending signals: %s", log_);
    return 0;
}
