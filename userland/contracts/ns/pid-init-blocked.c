/* A PID namespace's init and signals it blocks: a default-action signal
 * sent from inside its namespace while blocked is queued (sigpending
 * shows it), and dropped when the init unblocks it (the init lives on);
 * one it has a handler for by then runs the handler. (musl's fork blocks
 * every signal around the clone: a child that signalled the init at once
 * found it blocked, and the init died of SIGTERM.) */
#include "../common.h"
#include <sched.h>

static volatile sig_atomic_t got;
static void on_hup(int s) { (void)s; got = 1; }

int main(void)
{
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    pid_t init = fork();
    if (init == 0) {
        sigset_t set, pending;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
        sigprocmask(SIG_BLOCK, &set, NULL);
        pid_t b = fork();
        if (b == 0) {
            check("member: kill(1, SIGTERM)", kill(1, SIGTERM));
            check("member: kill(1, SIGHUP)", kill(1, SIGHUP));
            _exit(0);
        }
        reap("init: member", b);
        sigpending(&pending);
        out("init: SIGTERM pending: %s, SIGHUP pending: %s", yesno(sigismember(&pending, SIGTERM)), yesno(sigismember(&pending, SIGHUP)));
        signal(SIGHUP, on_hup);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        sigpending(&pending);
        out("init: after unblocking: still here, SIGTERM pending: %s, SIGHUP handler ran: %s", yesno(sigismember(&pending, SIGTERM)), yesno(got));
        _exit(7);
    }
    reap("namespace init", init);
    return 0;
}
