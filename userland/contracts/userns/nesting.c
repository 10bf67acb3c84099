/* How deep user namespaces nest (unshare(CLONE_NEWUSER) until it fails,
 * and with which error), and the combinations refused with EINVAL:
 * CLONE_NEWUSER with CLONE_FS for clone, and unshare(CLONE_NEWUSER) by
 * a process with more than one thread. */
#include "../common.h"
#include <pthread.h>
#include <sched.h>

static void *idle(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

int main(void)
{
    long r = syscall(SYS_clone, CLONE_NEWUSER | CLONE_FS | SIGCHLD, 0, 0, 0, 0);
    if (r == 0)
        _exit(0);
    out("clone(CLONE_NEWUSER|CLONE_FS): %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_clone, CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_FS | CLONE_FILES, 0, 0, 0, 0);
    out("clone(CLONE_NEWUSER|CLONE_THREAD...): %s", r < 0 ? errname(errno) : "ok");
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t;
        pthread_create(&t, NULL, idle, NULL);
        check("unshare(CLONE_NEWUSER) with two threads", unshare(CLONE_NEWUSER));
        _exit(0);
    }
    reap("threads child", pid);
    pid = fork();
    if (pid == 0) {
        int n = 0;
        while (unshare(CLONE_NEWUSER) == 0 && n < 100)
            n++;
        out("nested %d, then %s", n, errname(errno));
        _exit(0);
    }
    reap("nesting child", pid);
    return 0;
}
