/* restart_syscall called by a program (no call was interrupted to be
 * restarted that way): EINTR, before and after a signal handler ran. */
#include "common.h"

static void handler(int s) { (void)s; }

int main(void)
{
    check("restart_syscall", syscall(SYS_restart_syscall));
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    check("after a handler", syscall(SYS_restart_syscall));
    return 0;
}
