/* A PID namespace's init: from inside its namespace it takes only the
 * signals it has handlers for (kill returns 0 and nothing happens, even
 * for SIGKILL); from outside, signals without handlers are dropped too
 * but SIGKILL ends it; orphans of the namespace are reparented to it;
 * when it dies every other process of the namespace dies with it (its
 * parent finds them gone), and no process can be made there afterwards
 * (fork: ENOMEM). */
#include "../common.h"
#include <sched.h>

static volatile sig_atomic_t got;
static void on_usr1(int s) { (void)s; got = 1; }

int main(void)
{
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    int ready[2], hold[2];
    if (pipe(ready) < 0 || pipe(hold) < 0)
        return 1;
    pid_t init = fork();
    if (init == 0) {
        close(ready[0]);
        close(hold[0]);
        check("init: kill(1, SIGTERM) itself", kill(1, SIGTERM));
        check("init: kill(1, SIGKILL) itself", kill(1, SIGKILL));
        out("init: still here: yes");
        signal(SIGUSR1, on_usr1);
        pid_t b = fork();
        if (b == 0) {
            check("member: kill(1, SIGKILL)", kill(1, SIGKILL));
            check("member: kill(1, SIGTERM)", kill(1, SIGTERM));
            check("member: kill(1, SIGUSR1)", kill(1, SIGUSR1));
            _exit(0);
        }
        reap("init: member", b);
        for (int i = 0; i < 100 && !got; i++)
            msleep(10);
        out("init: SIGUSR1 handler ran: %s", yesno(got));
        /* An orphan: its parent exits, it is reparented to init. */
        int o[2];
        if (pipe(o) < 0)
            _exit(1);
        pid_t mid = fork();
        if (mid == 0) {
            pid_t orphan = fork();
            if (orphan == 0) {
                char c;
                close(o[1]);
                read(o[0], &c, 1);
                out("orphan: getppid %d", getppid());
                _exit(5);
            }
            _exit(0);
        }
        reap("init: middle", mid);
        close(o[0]);
        close(o[1]);
        int st;
        pid_t w = waitpid(-1, &st, 0);
        out("init: reaped orphan %d %s", w, wstatus(st));
        /* A long-lived member holding the pipe open. */
        pid_t sleeper = fork();
        if (sleeper == 0) {
            close(ready[1]);
            for (;;)
                pause();
        }
        close(hold[1]);
        write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    close(ready[1]);
    close(hold[1]);
    char c;
    out("parent: init ready: %s", yesno(read(ready[0], &c, 1) == 1));
    check("parent: kill(init, SIGTERM)", kill(init, SIGTERM));
    msleep(100);
    int st;
    out("parent: init still running: %s", yesno(waitpid(init, &st, WNOHANG) == 0));
    check("parent: kill(init, SIGKILL)", kill(init, SIGKILL));
    reap("parent: init", init);
    out("parent: sleeper gone (pipe at EOF): %s", yesno(read(hold[0], &c, 1) == 0));
    pid_t late = fork();
    if (late == 0)
        _exit(0);
    out("parent: fork into the dead namespace: %s", late < 0 ? errname(errno) : "ok");
    if (late > 0)
        reap("late", late);
    return 0;
}
