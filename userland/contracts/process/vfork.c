/* vfork: the parent is suspended until the child exits or execs, and the
 * child runs in the parent's memory. */
#include "common.h"

static volatile int shared_value;

int main(void)
{
    shared_value = 1;
    pid_t pid = vfork();
    if (pid == 0) {
        shared_value = 2; /* visible to the parent: same memory */
        _exit(7);
    }
    out("parent resumed after child: value=%d", shared_value);
    reap("vfork child", pid);

    pid = vfork();
    if (pid == 0) {
        char *argv[] = {"exit-with", "3", NULL};
        execve(HELPERS "/exit-with", argv, (char *[]){NULL});
        _exit(99);
    }
    out("parent resumed after exec");
    reap("vfork+exec child", pid);
    return 0;
}
