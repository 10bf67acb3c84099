/* exec from a thread other than the main one: the other threads are
 * gone, and the new program runs with the process id as its thread id.
 * fork from a thread: the child has one thread, the one that forked. */
#include "common.h"
#include <pthread.h>

static char *self_path;

static void *spin(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void *execer(void *arg)
{
    (void)arg;
    char pid_text[32];
    snprintf(pid_text, sizeof pid_text, "%d", getpid());
    char *argv[] = {self_path, "after-exec", pid_text, NULL};
    execv(self_path, argv);
    out("execv failed: %s", errname(errno));
    exit(1);
}

static int count_tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void *forker(void *arg)
{
    (void)arg;
    pid_t child = fork();
    if (child == 0) {
        out("  fork child: tid is pid: %s, tasks %d", yesno(syscall(SYS_gettid) == getpid()), count_tasks());
        _exit(4);
    }
    reap("fork from a thread", child);
    return NULL;
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (argc == 3 && strcmp(argv[1], "after-exec") == 0) {
        out("after exec: same pid: %s, tid is pid: %s, tasks %d", yesno(atoi(argv[2]) == getpid()),
            yesno(syscall(SYS_gettid) == getpid()), count_tasks());
        return 0;
    }
    pthread_t a, b, c;
    pthread_create(&a, NULL, spin, NULL);
    pthread_create(&b, NULL, spin, NULL);
    out("tasks with two threads more: %d", count_tasks());
    pthread_create(&c, NULL, forker, NULL);
    pthread_join(c, NULL);

    pid_t pid = fork();
    if (pid == 0) {
        pthread_t s, e;
        pthread_create(&s, NULL, spin, NULL);
        pthread_create(&e, NULL, execer, NULL);
        for (;;)
            pause();
    }
    reap("exec from a thread", pid);
    return 0;
}
