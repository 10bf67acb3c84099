/* Exit statuses are truncated to 8 bits; exit() and _exit() and returning
 * from main all deliver them. */
#include "common.h"

int main(void)
{
    int codes[] = {0, 1, 2, 127, 128, 255, 256, 257, -1, 1000};
    for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(codes[i]);
        char label[32];
        snprintf(label, sizeof label, "_exit(%d)", codes[i]);
        reap(label, pid);
    }
    pid_t pid = fork();
    if (pid == 0)
        exit(12);
    reap("exit(12)", pid);
    pid = fork();
    if (pid == 0)
        syscall(SYS_exit_group, 13);
    reap("exit_group(13)", pid);
    pid = fork();
    if (pid == 0)
        syscall(SYS_exit, 14);
    reap("exit(14) from the only thread", pid);
    return 0;
}
