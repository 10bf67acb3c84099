/* Signal-delivery stops: the tracer sees each signal before the tracee
 * acts on it and may suppress it or deliver another one (which then
 * comes from the tracer); SIGKILL is never reported and ends the tracee. */
#include "ptrace.h"

static volatile int hits, last_code, last_pid_is_parent;

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    hits++;
    last_code = si->si_code;
    last_pid_is_parent = si->si_pid == getppid();
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_usr1;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGUSR1, &sa, NULL);
        traceme_and_stop();
        raise(SIGUSR2);  /* suppressed by the tracer */
        raise(SIGTERM);  /* replaced by SIGUSR1 */
        raise(SIGUSR1);  /* delivered as is */
        _exit(hits * 10 + (last_code == SI_TKILL) + 2 * last_pid_is_parent);
    }
    pwait("stop", pid);
    pt("CONT suppressing SIGSTOP", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("stop 2", pid);
    pt("CONT suppressing SIGUSR2", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("stop 3", pid);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    out("si_signo: %s si_code is SI_TKILL: %s", signame(si.si_signo), yesno(si.si_code == SI_TKILL));
    pt("CONT with SIGUSR1", ptrace(PTRACE_CONT, pid, 0, (void *)SIGUSR1));
    pwait("stop 4", pid);
    pt("CONT bad signal", ptrace(PTRACE_CONT, pid, 0, (void *)100));
    pt("CONT delivering SIGUSR1", ptrace(PTRACE_CONT, pid, 0, (void *)SIGUSR1));
    int st = pwait("end", pid);
    if (WIFEXITED(st))
        out("handler runs %d, SI_TKILL last %d", WEXITSTATUS(st) / 10, WEXITSTATUS(st) % 10);
    /* SIGKILL ends a stopped tracee at once. */
    pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        _exit(0);
    }
    pwait("second stop", pid);
    kill(pid, SIGKILL);
    pwait("killed", pid);
    /* PTRACE_KILL too. */
    pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        _exit(0);
    }
    pwait("third stop", pid);
    pt("KILL", ptrace(PTRACE_KILL, pid, 0, 0));
    pwait("killed", pid);
    return 0;
}
