/* Nice values: getpriority/setpriority for the process, children inherit
 * the nice value, a non-root process cannot lower it. */
#include "common.h"
#include <sys/resource.h>

int main(void)
{
    errno = 0;
    out("initial nice: %d", getpriority(PRIO_PROCESS, 0));
    check("setpriority 5", setpriority(PRIO_PROCESS, 0, 5));
    out("now: %d", getpriority(PRIO_PROCESS, 0));
    check("setpriority 25 (clamped)", setpriority(PRIO_PROCESS, 0, 25));
    out("now: %d", getpriority(PRIO_PROCESS, 0));
    check("setpriority -25 as root (clamped)", setpriority(PRIO_PROCESS, 0, -25));
    out("now: %d", getpriority(PRIO_PROCESS, 0));
    setpriority(PRIO_PROCESS, 0, 3);
    pid_t pid = fork();
    if (pid == 0) {
        out("child inherits: %d", getpriority(PRIO_PROCESS, 0));
        setuid(1000);
        check("non-root raise nice to 6", setpriority(PRIO_PROCESS, 0, 6));
        check("non-root lower nice to 2", setpriority(PRIO_PROCESS, 0, 2));
        out("child ends at: %d", getpriority(PRIO_PROCESS, 0));
        _exit(0);
    }
    reap("child", pid);
    out("parent still: %d", getpriority(PRIO_PROCESS, 0));
    errno = 0;
    int r = getpriority(PRIO_PROCESS, 999999);
    out("getpriority(no such pid): %d %s", r, errname(errno));
    check("setpriority bad which", setpriority(42, 0, 1));
    return 0;
}
