/* SA_SIGINFO handlers get si_signo, si_code and the sender: SI_USER from
 * kill, SI_TKILL from tgkill/raise, SI_QUEUE with the value from
 * sigqueue, and si_pid/si_uid of the sender. */
#include "common.h"

static volatile int got_signo, got_code, got_val, got_pid_ok, got_uid;

static void h(int s, siginfo_t *si, void *uc)
{
    (void)uc;
    got_signo = si->si_signo;
    got_code = si->si_code;
    got_val = si->si_value.sival_int;
    got_pid_ok = si->si_pid == getpid();
    got_uid = si->si_uid;
    (void)s;
}

static const char *code(int c)
{
    switch (c) {
    case SI_USER: return "SI_USER";
    case SI_TKILL: return "SI_TKILL";
    case SI_QUEUE: return "SI_QUEUE";
    case SI_KERNEL: return "SI_KERNEL";
    }
    return "other";
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGRTMIN, &sa, NULL);

    kill(getpid(), SIGUSR1);
    out("kill: signo=%s code=%s pid is self=%s uid=%d", signame(got_signo), code(got_code), yesno(got_pid_ok), got_uid);
    syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
    out("tgkill: signo=%s code=%s pid is self=%s", signame(got_signo), code(got_code), yesno(got_pid_ok));
    syscall(SYS_tkill, gettid(), SIGUSR1);
    out("tkill: signo=%s code=%s", signame(got_signo), code(got_code));
    raise(SIGUSR1);
    out("raise: signo=%s code=%s", signame(got_signo), code(got_code));
    sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 1234});
    out("sigqueue: signo=%s code=%s value=%d", signame(got_signo), code(got_code), got_val);

    /* From a child with another uid. */
    got_signo = 0;
    sigset_t m, old;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigprocmask(SIG_BLOCK, &m, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        /* A non-root sender may not signal a root process... */
        int r = kill(parent, SIGUSR1);
        out("child uid 1000 kill(root parent): %s", r < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("child", pid);
    pid = fork();
    if (pid == 0) {
        kill(parent, SIGUSR1);
        _exit(0);
    }
    reap("child", pid);
    siginfo_t si;
    struct timespec ts = {5, 0};
    int s = sigtimedwait(&m, &si, &ts);
    out("from child: signo=%s code=%s pid is child=%s", signame(s), code(si.si_code), yesno(si.si_pid == pid));
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 0;
}
