/* waitid: siginfo decoding (si_signo, si_code, si_status), WNOWAIT leaving
 * the child waitable, WNOHANG returning 0 with si_pid 0, P_ALL, P_PGID. */
#include "common.h"

static const char *code_name(int c)
{
    switch (c) {
    case CLD_EXITED: return "CLD_EXITED";
    case CLD_KILLED: return "CLD_KILLED";
    case CLD_DUMPED: return "CLD_DUMPED";
    case CLD_STOPPED: return "CLD_STOPPED";
    case CLD_CONTINUED: return "CLD_CONTINUED";
    case CLD_TRAPPED: return "CLD_TRAPPED";
    }
    return "?";
}

static void show_info(const char *label, int r, siginfo_t *si, pid_t pid)
{
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    const char *st = si->si_code == CLD_EXITED ? "" : signame(si->si_status);
    char num[16];
    if (si->si_code == CLD_EXITED) {
        snprintf(num, sizeof num, "%d", si->si_status);
        st = num;
    }
    out("%s: si_signo=%s si_code=%s si_status=%s si_pid matches=%s", label,
        signame(si->si_signo), code_name(si->si_code), st, yesno(si->si_pid == pid));
}

int main(void)
{
    siginfo_t si;
    pid_t a = fork();
    if (a == 0)
        _exit(17);
    memset(&si, 0, sizeof si);
    int r = waitid(P_PID, a, &si, WEXITED | WNOWAIT);
    show_info("WNOWAIT", r, &si, a);
    memset(&si, 0, sizeof si);
    r = waitid(P_PID, a, &si, WEXITED);
    show_info("then WEXITED", r, &si, a);
    r = waitid(P_PID, a, &si, WEXITED);
    out("again: %s", r < 0 ? errname(errno) : "ok");

    pid_t b = fork();
    if (b == 0) {
        pause();
        _exit(0);
    }
    memset(&si, 0xff, sizeof si);
    r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG);
    out("WNOHANG while running: r=%d si_pid=%d", r, si.si_pid);
    kill(b, SIGUSR2);
    memset(&si, 0, sizeof si);
    r = waitid(P_ALL, 0, &si, WEXITED);
    show_info("killed child", r, &si, b);

    pid_t c = fork();
    if (c == 0) {
        setpgid(0, 0);
        _exit(4);
    }
    setpgid(c, c); /* either call wins; both set the same group */
    memset(&si, 0, sizeof si);
    r = waitid(P_PGID, c, &si, WEXITED);
    show_info("P_PGID", r, &si, c);

    r = waitid(P_PID, 1, &si, WEXITED);
    out("not a child: %s", r < 0 ? errname(errno) : "ok");
    r = waitid(P_ALL, 0, &si, 0);
    out("no options: %s", r < 0 ? errname(errno) : "ok");
    r = waitid(42, 0, &si, WEXITED);
    out("bad idtype: %s", r < 0 ? errname(errno) : "ok");
    return 0;
}
