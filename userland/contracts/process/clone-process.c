/* clone() creating processes: with only SIGCHLD it behaves like fork (own
 * memory); with CLONE_VM the child writes into the parent's memory. */
#include "common.h"
#include <sched.h>
#include <sys/mman.h>

static int value = 10;

static int child_fn(void *arg)
{
    value = (int)(long)arg;
    return 5;
}

int main(void)
{
    size_t sz = 64 * 1024;
    char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pid_t pid = clone(child_fn, stack + sz, SIGCHLD, (void *)20L);
    out("clone(SIGCHLD) positive: %s", yesno(pid > 0));
    reap("clone child", pid);
    out("value after private child: %d", value);

    pid = clone(child_fn, stack + sz, CLONE_VM | SIGCHLD, (void *)30L);
    reap("clone(CLONE_VM) child", pid);
    out("value after CLONE_VM child: %d", value);

    /* Raw clone with no stack: the child continues here like fork. */
    long r = syscall(SYS_clone, SIGCHLD, 0L, 0L, 0L, 0L);
    if (r == 0)
        _exit(9);
    reap("raw clone child", (pid_t)r);
    /* Invalid: CLONE_SIGHAND without CLONE_VM. */
    show("clone(CLONE_SIGHAND) without CLONE_VM", syscall(SYS_clone, CLONE_SIGHAND | SIGCHLD, 0L, 0L, 0L, 0L));
    return 0;
}
