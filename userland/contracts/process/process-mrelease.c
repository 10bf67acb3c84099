/* process_mrelease: flags must be 0 (EINVAL), the pidfd must be one
 * (EBADF); a process that is not being killed is EINVAL; a zombie (its
 * memory already gone) and a reaped process are ESRCH. */
#include "common.h"
#include <sys/wait.h>

#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

int main(void)
{
    int go[2];
    pipe(go);
    pid_t child = fork();
    if (child == 0) {
        char c;
        read(go[0], &c, 1);
        _exit(0);
    }
    int pidfd = syscall(SYS_pidfd_open, child, 0);
    check("flags 1", syscall(SYS_process_mrelease, pidfd, 1));
    check("not a pidfd", syscall(SYS_process_mrelease, go[0], 0));
    check("bad fd", syscall(SYS_process_mrelease, 999, 0));
    check("a live process", syscall(SYS_process_mrelease, pidfd, 0));
    int self = syscall(SYS_pidfd_open, getpid(), 0);
    check("itself", syscall(SYS_process_mrelease, self, 0));
    write(go[1], "g", 1);
    siginfo_t si;
    waitid(P_PID, child, &si, WEXITED | WNOWAIT);
    check("a zombie", syscall(SYS_process_mrelease, pidfd, 0));
    waitpid(child, NULL, 0);
    check("reaped", syscall(SYS_process_mrelease, pidfd, 0));
    return 0;
}
