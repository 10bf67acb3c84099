/* Close-on-exec: O_CLOEXEC, F_DUPFD_CLOEXEC, dup3(O_CLOEXEC) and
 * F_SETFD set FD_CLOEXEC; dup/dup2 clear it on the new fd. */
#include "common.h"

int main(void)
{
    int a = open("/", O_RDONLY | O_CLOEXEC);
    out("O_CLOEXEC: FD_CLOEXEC=%d", fcntl(a, F_GETFD) & FD_CLOEXEC);
    int b = dup(a);
    out("dup of it: FD_CLOEXEC=%d", fcntl(b, F_GETFD) & FD_CLOEXEC);
    int c = fcntl(b, F_DUPFD_CLOEXEC, 0);
    out("F_DUPFD_CLOEXEC: FD_CLOEXEC=%d", fcntl(c, F_GETFD) & FD_CLOEXEC);
    int d = dup3(b, 20, O_CLOEXEC);
    out("dup3 O_CLOEXEC to 20: fd=%d FD_CLOEXEC=%d", d, fcntl(d, F_GETFD) & FD_CLOEXEC);
    dup2(b, 20);
    out("dup2 over it: FD_CLOEXEC=%d", fcntl(20, F_GETFD) & FD_CLOEXEC);
    fcntl(b, F_SETFD, FD_CLOEXEC);
    out("F_SETFD: FD_CLOEXEC=%d", fcntl(b, F_GETFD) & FD_CLOEXEC);
    fcntl(b, F_SETFD, 0);
    out("F_SETFD 0: FD_CLOEXEC=%d", fcntl(b, F_GETFD) & FD_CLOEXEC);
    int p[2];
    pipe2(p, O_CLOEXEC);
    out("pipe2 O_CLOEXEC: %d %d", fcntl(p[0], F_GETFD) & FD_CLOEXEC, fcntl(p[1], F_GETFD) & FD_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {
        execve(HELPERS "/probe", (char *[]){"probe", "fd", "3", "4", "5", "20", "21", NULL}, (char *[]){NULL});
        _exit(100);
    }
    reap("probe", pid);
    return 0;
}
