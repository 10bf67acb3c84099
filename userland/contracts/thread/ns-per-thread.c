/* Namespaces belong to threads, as Linux's nsproxy: unshare(CLONE_NEWUTS)
 * or unshare(CLONE_NEWIPC) in one thread changes only that thread's
 * /proc/thread-self/ns link and hostname, not the main thread's (nor
 * /proc/self/ns, the main thread's); unshare(CLONE_NEWNS) in a thread
 * (which implies CLONE_FS) gives it a mount table of its own: its mounts
 * are not the main thread's and the main thread's mounts made meanwhile
 * are not its; when the main thread unshares, a thread already running
 * keeps the namespace it had, and a thread made after starts in the
 * creator's. */
#include "common.h"
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

static char main_uts[64], main_ipc[64], main_mnt[64], host[64];
static int to_main[2], to_thread[2];

static void link_of(const char *path, char *buf, size_t len)
{
    ssize_t n = readlink(path, buf, len - 1);
    buf[n > 0 ? n : 0] = 0;
}

static const char *mounted(const char *dir)
{
    struct stat a, b;
    char parent[300];
    snprintf(parent, sizeof parent, "%s/..", dir);
    if (stat(dir, &a) < 0 || stat(parent, &b) < 0)
        return "missing";
    return a.st_dev != b.st_dev ? "mounted" : "not mounted";
}

static void say(int fd) { write(fd, "x", 1); }
static void hear(int fd) { char c; read(fd, &c, 1); }

static void *uts_thread(void *arg)
{
    (void)arg;
    char buf[64];
    check("thread: unshare(CLONE_NEWUTS)", unshare(CLONE_NEWUTS));
    link_of("/proc/thread-self/ns/uts", buf, sizeof buf);
    out("thread: its uts differs from the main thread's: %s", yesno(strcmp(buf, main_uts) != 0));
    check("thread: sethostname", sethostname("in-thread", 9));
    gethostname(buf, sizeof buf);
    out("thread: hostname %s", buf);
    check("thread: unshare(CLONE_NEWIPC)", unshare(CLONE_NEWIPC));
    link_of("/proc/thread-self/ns/ipc", buf, sizeof buf);
    out("thread: its ipc differs: %s", yesno(strcmp(buf, main_ipc) != 0));
    say(to_main[1]);
    hear(to_thread[0]);
    return NULL;
}

static void *mnt_thread(void *arg)
{
    (void)arg;
    char buf[64];
    check("mnt thread: unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
    link_of("/proc/thread-self/ns/mnt", buf, sizeof buf);
    out("mnt thread: its mnt differs from the main thread's: %s", yesno(strcmp(buf, main_mnt) != 0));
    check("mnt thread: mount tmpfs on m", mount("none", "m", "tmpfs", 0, NULL));
    out("mnt thread: m %s", mounted("m"));
    say(to_main[1]);
    hear(to_thread[0]);
    out("mnt thread: n (mounted by the main thread meanwhile) %s", mounted("n"));
    check("mnt thread: umount m", umount("m"));
    say(to_main[1]);
    hear(to_thread[0]);
    return NULL;
}

static void *watcher(void *arg)
{
    (void)arg;
    char before[64], after[64];
    link_of("/proc/thread-self/ns/uts", before, sizeof before);
    say(to_main[1]);
    hear(to_thread[0]);
    link_of("/proc/thread-self/ns/uts", after, sizeof after);
    out("running thread: uts unchanged by the main thread's unshare: %s", yesno(strcmp(before, after) == 0));
    char now[64];
    gethostname(now, sizeof now);
    out("running thread: hostname still the old one: %s", yesno(strcmp(now, host) == 0));
    return NULL;
}

static void *late(void *arg)
{
    char buf[64];
    link_of("/proc/thread-self/ns/uts", buf, sizeof buf);
    out("thread made after: in the main thread's new uts: %s", yesno(strcmp(buf, (char *)arg) == 0));
    return NULL;
}

int main(void)
{
    pipe(to_main);
    pipe(to_thread);
    mkdir("m", 0755);
    mkdir("n", 0755);
    char buf[64];
    gethostname(host, sizeof host);
    link_of("/proc/thread-self/ns/uts", main_uts, sizeof main_uts);
    link_of("/proc/thread-self/ns/ipc", main_ipc, sizeof main_ipc);
    link_of("/proc/thread-self/ns/mnt", main_mnt, sizeof main_mnt);

    pthread_t t;
    pthread_create(&t, NULL, uts_thread, NULL);
    hear(to_main[0]);
    link_of("/proc/thread-self/ns/uts", buf, sizeof buf);
    out("main: uts unchanged: %s", yesno(strcmp(buf, main_uts) == 0));
    link_of("/proc/self/ns/uts", buf, sizeof buf);
    out("main: /proc/self/ns/uts unchanged: %s", yesno(strcmp(buf, main_uts) == 0));
    link_of("/proc/thread-self/ns/ipc", buf, sizeof buf);
    out("main: ipc unchanged: %s", yesno(strcmp(buf, main_ipc) == 0));
    gethostname(buf, sizeof buf);
    out("main: hostname unchanged: %s", yesno(strcmp(buf, host) == 0));
    say(to_thread[1]);
    pthread_join(t, NULL);

    pthread_create(&t, NULL, mnt_thread, NULL);
    hear(to_main[0]);
    link_of("/proc/thread-self/ns/mnt", buf, sizeof buf);
    out("main: mnt unchanged: %s", yesno(strcmp(buf, main_mnt) == 0));
    link_of("/proc/self/ns/mnt", buf, sizeof buf);
    out("main: /proc/self/ns/mnt unchanged: %s", yesno(strcmp(buf, main_mnt) == 0));
    out("main: m (mounted by the thread) %s", mounted("m"));
    check("main: mount tmpfs on n", mount("none", "n", "tmpfs", 0, NULL));
    say(to_thread[1]);
    hear(to_main[0]);
    out("main: m after the thread's umount %s, n %s", mounted("m"), mounted("n"));
    check("main: umount n", umount("n"));
    say(to_thread[1]);
    pthread_join(t, NULL);

    pthread_create(&t, NULL, watcher, NULL);
    hear(to_main[0]);
    check("main: unshare(CLONE_NEWUTS)", unshare(CLONE_NEWUTS));
    check("main: sethostname", sethostname("in-main", 7));
    say(to_thread[1]);
    pthread_join(t, NULL);
    link_of("/proc/thread-self/ns/uts", buf, sizeof buf);
    out("main: its uts is new: %s", yesno(strcmp(buf, main_uts) != 0));
    pthread_create(&t, NULL, late, buf);
    pthread_join(t, NULL);
    return 0;
}
