/* How deep user namespaces nest (unshare(CLONE_NEWUSER) until it fails,
 * and with which error), and the combinations refused with EINVAL:
 * CLONE_NEWUSER with CLONE_FS for clone, and unshare(CLONE_NEWUSER) by
 * a process with more than one thread; a creator its namespace does not
 * map cannot make another below it (EPERM). */
#include "../common.h"
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>

static void *idle(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

static int wr(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n < 0 ? -1 : 0;
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
        out("unmapped creator: %s", unshare(CLONE_NEWUSER) == 0 && unshare(CLONE_NEWUSER) < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("unmapped child", pid);
    pid = fork();
    if (pid == 0) {
        int n = 0;
        /* Each level maps root to its parent's root, so that it may make
         * the next. */
        while (unshare(CLONE_NEWUSER) == 0 && n < 100) {
            n++;
            if (wr("/proc/self/setgroups", "deny") < 0 || wr("/proc/self/uid_map", "0 0 1") < 0 || wr("/proc/self/gid_map", "0 0 1") < 0) {
                out("level %d: map %s", n, errname(errno));
                break;
            }
        }
        out("nested %d, then %s", n, errname(errno));
        _exit(0);
    }
    reap("nesting child", pid);
    return 0;
}
