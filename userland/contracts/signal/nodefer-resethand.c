/* SA_NODEFER lets a handler be re-entered by its own signal (nesting);
 * without it the signal is blocked in the handler and runs after. sa_mask
 * adds signals blocked during the handler. SA_RESETHAND restores SIG_DFL
 * after the first delivery. */
#include "common.h"

static char order[64];
static volatile int depth, calls;

static void note(char c)
{
    size_t n = strlen(order);
    if (n < sizeof order - 1)
        order[n] = c;
}

static void h(int s)
{
    (void)s;
    ++depth;
    note('[');
    if (++calls == 1) /* raise once, from the first invocation only */
        raise(SIGUSR1);
    note(']');
    depth--;
}

static volatile int blocked_inside;
static void h2(int s)
{
    (void)s;
    sigset_t cur;
    sigprocmask(SIG_SETMASK, NULL, &cur);
    blocked_inside = (sigismember(&cur, SIGUSR2) ? 1 : 0) | (sigismember(&cur, SIGTERM) ? 2 : 0);
}

static volatile int resets;
static void h3(int s) { (void)s; resets++; }

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("default (deferred): %s", order);
    memset(order, 0, sizeof order);
    calls = 0;
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("SA_NODEFER (nested): %s", order);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h2;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGUSR2, &sa, NULL);
    raise(SIGUSR2);
    out("inside handler: own signal blocked=%s sa_mask signal blocked=%s", yesno(blocked_inside & 1), yesno(blocked_inside & 2));
    sigset_t after;
    sigprocmask(SIG_SETMASK, NULL, &after);
    out("after handler: SIGTERM blocked=%s", yesno(sigismember(&after, SIGTERM)));

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h3;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    struct sigaction cur;
    sigaction(SIGUSR1, NULL, &cur);
    out("SA_RESETHAND: handler ran %d, disposition now %s", resets, cur.sa_handler == SIG_DFL ? "SIG_DFL" : "still set");
    pid_t pid = fork();
    if (pid == 0) {
        raise(SIGUSR1);
        _exit(0);
    }
    reap("second SIGUSR1 in a child", pid);
    return 0;
}
