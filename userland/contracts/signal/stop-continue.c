/* Stop and continue: SIGSTOP/SIGTSTP stop a child (waitpid WUNTRACED
 * reports it once), SIGCONT resumes it (WCONTINUED reports it once), and
 * waitid shows CLD_STOPPED/CLD_CONTINUED. A stopped child still dies from
 * SIGKILL; other signals wait until it continues. SIGCHLD is sent to the
 * parent for stops too. SIGTSTP does not stop a member of an orphaned
 * process group (the test's own group: its parent, init, is in another
 * session), so the children move to a group of their own first. */
#include "common.h"

static volatile int chld;
static void on_chld(int s) { (void)s; chld++; }

static pid_t spawn_in_own_group(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        for (;;)
            pause();
    }
    setpgid(pid, pid);
    return pid;
}

int main(void)
{
    signal(SIGCHLD, on_chld);
    pid_t pid = spawn_in_own_group();
    int st;
    kill(pid, SIGSTOP);
    pid_t r = waitpid(pid, &st, WUNTRACED);
    out("after SIGSTOP: %s (returned child: %s)", wstatus(st), yesno(r == pid));
    show("second WUNTRACED|WNOHANG", waitpid(pid, &st, WUNTRACED | WNOHANG));
    kill(pid, SIGCONT);
    r = waitpid(pid, &st, WCONTINUED);
    out("after SIGCONT: %s", wstatus(st));
    show("second WCONTINUED|WNOHANG", waitpid(pid, &st, WCONTINUED | WNOHANG));
    kill(pid, SIGTSTP);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    waitid(P_PID, pid, &si, WSTOPPED);
    out("waitid after SIGTSTP: code=%s status=%s", si.si_code == CLD_STOPPED ? "CLD_STOPPED" : "other", signame(si.si_status));
    kill(pid, SIGCONT);
    memset(&si, 0, sizeof si);
    waitid(P_PID, pid, &si, WCONTINUED);
    out("waitid after SIGCONT: code=%s status=%s", si.si_code == CLD_CONTINUED ? "CLD_CONTINUED" : "other", signame(si.si_status));
    kill(pid, SIGSTOP);
    waitpid(pid, &st, WUNTRACED);
    kill(pid, SIGTERM);
    msleep(50);
    show("SIGTERM to stopped child, WNOHANG", waitpid(pid, &st, WNOHANG));
    kill(pid, SIGKILL);
    reap("SIGKILL while stopped", pid);
    out("SIGCHLD received for stop/continue/exit: %s", yesno(chld >= 3));

    pid = spawn_in_own_group();
    kill(pid, SIGSTOP);
    waitpid(pid, &st, WUNTRACED);
    kill(pid, SIGTERM);
    kill(pid, SIGCONT);
    reap("SIGTERM pending while stopped, then SIGCONT", pid);

    /* Orphaned process group: SIGTSTP (default action) is discarded. */
    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    kill(pid, SIGTSTP);
    msleep(100);
    show("SIGTSTP in an orphaned group, WUNTRACED|WNOHANG", waitpid(pid, &st, WUNTRACED | WNOHANG));
    kill(pid, SIGSTOP);
    r = waitpid(pid, &st, WUNTRACED);
    out("SIGSTOP still stops it: %s", wstatus(st));
    kill(pid, SIGKILL);
    reap("child", pid);
    return 0;
}
