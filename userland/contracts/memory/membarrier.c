/* membarrier: QUERY's command set, GLOBAL, the registrations the private
 * commands need (EPERM before), flags (EINVAL), unknown commands; a fork
 * child starts unregistered. */
#include "common.h"

static long mb(int cmd, unsigned flags, int cpu) { return rawsys(SYS_membarrier, cmd, flags, cpu, 0, 0, 0); }

int main(void)
{
    out("QUERY: %ld", mb(0, 0, 0));
    rcheck("QUERY with flags 1", mb(0, 1, 0));
    rcheck("GLOBAL", mb(1, 0, 0));
    rcheck("GLOBAL_EXPEDITED", mb(2, 0, 0));
    rcheck("PRIVATE_EXPEDITED before registering", mb(8, 0, 0));
    rcheck("PRIVATE_EXPEDITED_SYNC_CORE before registering", mb(32, 0, 0));
    rcheck("PRIVATE_EXPEDITED_RSEQ before registering", mb(128, 0, 0));
    rcheck("PRIVATE_EXPEDITED_RSEQ flag CPU before registering", mb(128, 1, 0));
    rcheck("PRIVATE_EXPEDITED_RSEQ flag 2", mb(128, 2, 0));
    rcheck("PRIVATE_EXPEDITED flag CPU", mb(8, 1, 0));
    rcheck("REGISTER_PRIVATE_EXPEDITED", mb(16, 0, 0));
    rcheck("PRIVATE_EXPEDITED", mb(8, 0, 0));
    rcheck("PRIVATE_EXPEDITED_SYNC_CORE still unregistered", mb(32, 0, 0));
    rcheck("REGISTER_PRIVATE_EXPEDITED_SYNC_CORE", mb(64, 0, 0));
    rcheck("PRIVATE_EXPEDITED_SYNC_CORE", mb(32, 0, 0));
    rcheck("REGISTER_PRIVATE_EXPEDITED_RSEQ", mb(256, 0, 0));
    rcheck("PRIVATE_EXPEDITED_RSEQ", mb(128, 0, 0));
    rcheck("PRIVATE_EXPEDITED_RSEQ on CPU 0", mb(128, 1, 0));
    rcheck("PRIVATE_EXPEDITED_RSEQ on CPU 4096", mb(128, 1, 4096));
    rcheck("REGISTER_GLOBAL_EXPEDITED", mb(4, 0, 0));
    rcheck("REGISTER twice", mb(16, 0, 0));
    rcheck("GET_REGISTRATIONS (6.3)", mb(512, 0, 0));
    rcheck("command 3", mb(3, 0, 0));
    rcheck("command -1", mb(-1, 0, 0));
    pid_t pid = fork();
    if (pid == 0) {
        rcheck("child: PRIVATE_EXPEDITED", mb(8, 0, 0));
        _exit(0);
    }
    reap("child", pid);
    return 0;
}
