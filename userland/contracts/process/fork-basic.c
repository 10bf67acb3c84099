/* fork: the child gets 0, the parent the child's pid; ids relate as
 * documented; the child's exit status reaches the parent through wait4. */
#include "common.h"
#include <sys/resource.h>

int main(void)
{
    pid_t parent = getpid();
    int pfd[2];
    pipe(pfd);
    pid_t pid = fork();
    if (pid < 0) {
        out("fork: %s", errname(errno));
        return 1;
    }
    if (pid == 0) {
        close(pfd[0]);
        char r[3] = {getpid() != parent ? 'y' : 'n', getppid() == parent ? 'y' : 'n', '\n'};
        write(pfd[1], r, 3);
        _exit(42);
    }
    close(pfd[1]);
    char r[3] = {0};
    read_full(pfd[0], r, 3);
    out("child pid differs from parent: %s", r[0] == 'y' ? "yes" : "no");
    out("child getppid is parent: %s", r[1] == 'y' ? "yes" : "no");
    out("fork returned a positive pid: %s", yesno(pid > 0));
    int st;
    struct rusage ru;
    pid_t w = wait4(pid, &st, 0, &ru);
    out("wait4 returned the child: %s", yesno(w == pid));
    out("status: %s", wstatus(st));
    show("second wait4", wait4(pid, &st, 0, NULL));
    return 0;
}
