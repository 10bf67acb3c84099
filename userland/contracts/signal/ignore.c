/* SIG_IGN: ignored signals are discarded, but a blocked one stays pending
 * (the disposition may change before it is unblocked);
 * SIGKILL/SIGSTOP cannot be ignored or caught (EINVAL); ignoring SIGCHLD
 * makes children reap themselves (wait gives ECHILD); SA_NOCLDSTOP. */
#include "common.h"

int main(void)
{
    signal(SIGUSR1, SIG_IGN);
    raise(SIGUSR1);
    out("survived ignored SIGUSR1");
    sigset_t m, p;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigprocmask(SIG_BLOCK, &m, NULL);
    raise(SIGUSR1);
    sigpending(&p);
    out("ignored+blocked is pending: %s", yesno(sigismember(&p, SIGUSR1)));
    sigprocmask(SIG_UNBLOCK, &m, NULL);
    sigpending(&p);
    out("after unblocking it is gone: %s", yesno(!sigismember(&p, SIGUSR1)));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    check("ignore SIGKILL", sigaction(SIGKILL, &sa, NULL));
    check("ignore SIGSTOP", sigaction(SIGSTOP, &sa, NULL));
    check("sigaction signal 0", sigaction(0, &sa, NULL));
    check("sigaction signal 65", sigaction(65, &sa, NULL));
    check("query SIGKILL", sigaction(SIGKILL, NULL, &sa));
    /* Blocked default-ignored signal stays pending. */
    sigemptyset(&m);
    sigaddset(&m, SIGURG);
    sigprocmask(SIG_BLOCK, &m, NULL);
    raise(SIGURG);
    sigpending(&p);
    out("default-ignored SIGURG blocked is pending: %s", yesno(sigismember(&p, SIGURG)));
    signal(SIGURG, SIG_IGN);
    sigpending(&p);
    out("setting SIG_IGN discards the pending one: %s", yesno(!sigismember(&p, SIGURG)));

    signal(SIGCHLD, SIG_IGN);
    pid_t pid = fork();
    if (pid == 0)
        _exit(3);
    int st;
    errno = 0;
    pid_t r = waitpid(pid, &st, 0);
    out("wait with SIGCHLD ignored: %ld %s", (long)(r == pid ? 1 : r), errname(errno));
    signal(SIGCHLD, SIG_DFL);
    pid = fork();
    if (pid == 0)
        _exit(4);
    reap("with SIGCHLD default", pid);
    /* SA_NOCLDWAIT has the same effect. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = SA_NOCLDWAIT;
    sigaction(SIGCHLD, &sa, NULL);
    pid = fork();
    if (pid == 0)
        _exit(5);
    errno = 0;
    r = waitpid(pid, &st, 0);
    out("wait with SA_NOCLDWAIT: %ld %s", (long)(r == pid ? 1 : r), errname(errno));
    return 0;
}
