/* unshare(CLONE_FS) in a thread of a multi-threaded process: Linux gives
 * the thread a copy of its fs_struct, so its working directory, root and
 * umask then differ from the other threads'. setns into a mount namespace
 * is EINVAL while the caller shares its fs_struct (another thread uses
 * it), allowed once it has its own; unshare(CLONE_NEWNS) (which implies
 * CLONE_FS) works in a thread too. A thread made after keeps sharing the
 * process's context. */
#include "common.h"
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>

static int mnt_fd = -1;

static void cwd(const char *label)
{
    char buf[256];
    if (!getcwd(buf, sizeof buf)) {
        out("%s: getcwd %s", label, errname(errno));
        return;
    }
    const char *base = strrchr(buf, '/');
    out("%s: cwd ends in %s", label, base ? base : buf);
}

static void *before(void *arg)
{
    (void)arg;
    show("setns(mnt) in a thread sharing fs", setns(mnt_fd, CLONE_NEWNS));
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    check("thread: unshare(CLONE_FS)", unshare(CLONE_FS));
    check("thread: chdir a", chdir("a"));
    out("thread: umask was %03o", umask(077));
    cwd("thread");
    show("thread: setns(mnt) with its own fs", setns(mnt_fd, CLONE_NEWNS));
    cwd("thread after setns");
    check("thread: unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
    return NULL;
}

static void *late(void *arg)
{
    (void)arg;
    cwd("thread made after");
    mode_t m = umask(022);
    umask(m);
    out("thread made after: umask %03o", m);
    return NULL;
}

/* Waits until the process has one thread: pthread_join returns when the
 * thread cleared its tid word, before it dropped its fs_struct. */
static int wait_single(void)
{
    for (int i = 0; i < 500; i++) {
        char buf[4096];
        int fd = open("/proc/self/status", O_RDONLY);
        int n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = 0;
        char *t = strstr(buf, "Threads:");
        if (t && atoi(t + 8) == 1)
            return 1;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int main(void)
{
    mkdir("a", 0755);
    mkdir("b", 0755);
    mnt_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    umask(022);
    pthread_t t;
    pthread_create(&t, NULL, before, NULL);
    pthread_join(t, NULL);
    /* A second thread keeps the process multi-threaded while the worker
     * runs: the fs_struct is shared by two tasks before the unshare. */
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    check("main: chdir b", chdir("b"));
    cwd("main");
    mode_t m = umask(022);
    out("main: umask %03o", m);
    pthread_create(&t, NULL, late, NULL);
    pthread_join(t, NULL);
    out("threads gone: %s", yesno(wait_single()));
    show("main alone: setns(mnt)", setns(mnt_fd, CLONE_NEWNS));
    return 0;
}
