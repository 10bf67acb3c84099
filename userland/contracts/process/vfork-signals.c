/* A vfork parent waits killably: SIGKILL ends it while its child still
 * holds the shared memory, and a signal with a handler waits until the
 * child lets go (then the handler runs). Both with parent and child on
 * one CPU, where a parent spinning on a pending signal would starve the
 * child. */
#include "common.h"
#include <sched.h>

static volatile int handled;
static void on_usr1(int s) { (void)s; handled = 1; }

static void pin_cpu0(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    sched_setaffinity(0, sizeof set, &set);
}

int main(void)
{
    /* SIGKILL to a parent waiting in vfork. */
    int p[2];
    pipe(p);
    pid_t c = fork();
    if (c == 0) {
        pin_cpu0();
        pid_t g = vfork();
        if (g == 0) {
            char ch;
            read(p[0], &ch, 1); /* until the test lets go */
            _exit(0);
        }
        _exit(5);
    }
    msleep(200);
    kill(c, SIGKILL);
    reap("vfork parent after SIGKILL", c);
    write(p[1], "x", 1);
    msleep(50);

    /* A handled signal waits for the child. */
    c = fork();
    if (c == 0) {
        pin_cpu0();
        struct sigaction sa = { .sa_handler = on_usr1 };
        sigaction(SIGUSR1, &sa, NULL);
        pid_t g = vfork();
        if (g == 0) {
            struct timespec t = { 0, 300 * 1000 * 1000 };
            nanosleep(&t, NULL);
            _exit(3);
        }
        int st;
        waitpid(g, &st, 0);
        out("vfork returned: child %s, handler ran: %s", wstatus(st), yesno(handled));
        _exit(0);
    }
    msleep(100);
    kill(c, SIGUSR1);
    reap("vfork parent after SIGUSR1", c);
    return 0;
}
