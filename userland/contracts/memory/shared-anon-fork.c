/* MAP_SHARED|MAP_ANONYMOUS memory is shared with children across fork:
 * each side sees the other's writes. */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    volatile int *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    s[0] = 1;
    pid_t pid = fork();
    if (pid == 0) {
        s[1] = s[0] + 100;
        while (s[2] == 0)
            usleep(1000);
        s[3] = s[2] * 2;
        _exit(0);
    }
    while (s[1] == 0)
        usleep(1000);
    out("parent sees child's write: %d", s[1]);
    s[2] = 21;
    reap("child", pid);
    out("child saw parent's write: %d", s[3]);
    return 0;
}
