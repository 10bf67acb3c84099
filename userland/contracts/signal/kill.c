/* kill/tkill/tgkill argument handling: signal 0 checks existence,
 * ESRCH for missing targets, EINVAL for bad signal numbers, EPERM for
 * an unprivileged sender; kill(-1) reaches every process we may signal
 * except ourselves (checked with children in our group). */
#include "common.h"

static volatile int got;
static void h(int s) { got = s; }

int main(void)
{
    show("kill(self, 0)", kill(getpid(), 0));
    show("kill(missing, 0)", kill(999999, 0));
    show("kill(self, 65)", kill(getpid(), 65));
    show("kill(self, -1)", kill(getpid(), -1));
    show("tkill(self, 0)", syscall(SYS_tkill, gettid(), 0));
    show("tkill(missing)", syscall(SYS_tkill, 999999, SIGUSR1));
    show("tkill(0)", syscall(SYS_tkill, 0, SIGUSR1));
    show("tgkill(self, self, 0)", syscall(SYS_tgkill, getpid(), gettid(), 0));
    show("tgkill wrong tgid", syscall(SYS_tgkill, 999999, gettid(), SIGUSR1));
    show("tgkill(-1)", syscall(SYS_tgkill, -1, gettid(), SIGUSR1));
    show("kill(INT_MIN)", kill(-2147483647 - 1, SIGUSR1));
    signal(SIGUSR1, h);
    show("kill(0, SIGUSR1) own group", kill(0, SIGUSR1));
    out("delivered to self: %s", signame(got));
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        show("uid 1000: kill(init, 0)", kill(1, 0));
        show("uid 1000: kill(missing, 0)", kill(999999, 0));
        _exit(0);
    }
    reap("child", pid);
    /* A child with uid 1000 may be signalled by another uid-1000 process. */
    int ready[2];
    pipe(ready);
    pid_t victim = fork();
    if (victim == 0) {
        setuid(1000);
        write(ready[1], "r", 1);
        for (;;)
            pause();
    }
    char c;
    read(ready[0], &c, 1); /* the victim runs as uid 1000 now */
    pid = fork();
    if (pid == 0) {
        setuid(1000);
        show("uid 1000 kills another uid-1000 process", kill(victim, SIGTERM));
        _exit(0);
    }
    reap("sender", pid);
    reap("victim", victim);
    return 0;
}
