/* Stop and continue: SIGSTOP/SIGTSTP stop a child (waitpid WUNTRACED
 * reports it once), SIGCONT resumes it (WCONTINUED reports it once), and
 * waitid shows CLD_STOPPED/CLD_CONTINUED. A stopped child still dies from
 * SIGKILL. SIGCHLD is sent to the parent for stops too. */
#include "common.h"

static volatile int chld;
static void on_chld(int s) { (void)s; chld++; }

int main(void)
{
    signal(SIGCHLD, on_chld);
    pid_t pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
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
    /* Signals other than SIGKILL/SIGCONT stay pending while stopped. */
    kill(pid, SIGTERM);
    show("SIGTERM to stopped child, WNOHANG", waitpid(pid, &st, WNOHANG));
    kill(pid, SIGKILL);
    reap("SIGKILL while stopped", pid);
    out("SIGCHLD received for stop/continue/exit: %s", yesno(chld >= 3));
    /* A stopped child continued by SIGCONT then gets the pending SIGTERM. */
    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    kill(pid, SIGSTOP);
    waitpid(pid, &st, WUNTRACED);
    kill(pid, SIGTERM);
    kill(pid, SIGCONT);
    reap("SIGTERM pending while stopped, then SIGCONT", pid);
    return 0;
}
