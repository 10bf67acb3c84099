/* wait4/waitpid status decoding: normal exit, death by signal, WNOHANG,
 * ECHILD, waiting for any child vs a specific one. */
#include "common.h"

int main(void)
{
    int st;
    errno = 0;
    show("wait with no children", wait(&st));
    show("waitpid(-1, WNOHANG) with no children", waitpid(-1, &st, WNOHANG));

    pid_t a = fork();
    if (a == 0) {
        pause();
        _exit(0);
    }
    show("WNOHANG while the child runs", waitpid(a, &st, WNOHANG));
    kill(a, SIGTERM);
    reap("SIGTERM child", a);

    pid_t b = fork();
    if (b == 0) {
        raise(SIGKILL);
        _exit(0);
    }
    waitpid(b, &st, 0);
    out("WIFSIGNALED=%d WTERMSIG=%s WIFEXITED=%d", WIFSIGNALED(st), signame(WTERMSIG(st)), WIFEXITED(st));

    pid_t c = fork();
    if (c == 0)
        _exit(3);
    pid_t r = waitpid(-1, &st, 0);
    out("waitpid(-1) returned the child: %s, WEXITSTATUS=%d", yesno(r == c), WEXITSTATUS(st));

    /* A pid that is not our child. */
    show("waitpid(1)", waitpid(1, &st, 0));
    show("waitpid with bad options", waitpid(-1, &st, 0x10));

    /* Two children, reaped by specific pid in reverse order. */
    pid_t d = fork();
    if (d == 0)
        _exit(21);
    pid_t e = fork();
    if (e == 0)
        _exit(22);
    reap("second child first", e);
    reap("first child second", d);
    /* NULL status pointer is allowed. */
    pid_t f = fork();
    if (f == 0)
        _exit(0);
    out("waitpid with NULL status returned the child: %s", yesno(waitpid(f, NULL, 0) == f));
    return 0;
}
