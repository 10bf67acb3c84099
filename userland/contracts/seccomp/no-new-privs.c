/* PR_SET_NO_NEW_PRIVS / PR_GET_NO_NEW_PRIVS: the argument checks, set once
 * and never cleared, per thread (a thread that existed before keeps its
 * own), inherited by threads and children created after, kept across
 * execve; /proc/PID/status's NoNewPrivs line. */
#include "seccomp.h"
#include <pthread.h>

static int pipefd[2], backfd[2];

static void *early(void *arg)
{
    (void)arg;
    char c;
    if (read(pipefd[0], &c, 1) != 1)
        return NULL;
    long r = prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0);
    if (write(backfd[1], &r, sizeof r) != sizeof r)
        return NULL;
    return NULL;
}

static void *late(void *arg)
{
    (void)arg;
    return (void *)(long)prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        show("after exec: get", prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0));
        sc_status("after exec", "/proc/self/status");
        return 0;
    }
    if (pipe(pipefd) || pipe(backfd))
        return 1;
    pthread_t t1, t2;
    pthread_create(&t1, NULL, early, NULL);
    show("get", prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0));
    show("get with arg2", prctl(PR_GET_NO_NEW_PRIVS_, 1, 0, 0, 0));
    show("get with arg5", prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 1));
    sc_status("before", "/proc/self/status");
    show("set 0", prctl(PR_SET_NO_NEW_PRIVS_, 0, 0, 0, 0));
    show("set 2", prctl(PR_SET_NO_NEW_PRIVS_, 2, 0, 0, 0));
    show("set 1 arg3", prctl(PR_SET_NO_NEW_PRIVS_, 1, 1, 0, 0));
    show("set 1 arg4", prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 1, 0));
    show("get after refused sets", prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0));
    show("set 1", prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0));
    show("set 1 again", prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0));
    show("get", prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0));
    sc_status("after", "/proc/self/status");

    /* A thread that existed before keeps its own flag. */
    long r = -1;
    if (write(pipefd[1], "x", 1) != 1 || read(backfd[0], &r, sizeof r) != sizeof r)
        return 1;
    out("earlier thread: %ld", r);
    pthread_join(t1, NULL);
    void *v;
    pthread_create(&t2, NULL, late, NULL);
    pthread_join(t2, &v);
    out("later thread: %ld", (long)v);

    pid_t pid = fork();
    if (pid == 0) {
        show("child: get", prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0));
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        out("execl: %s", errname(errno));
        _exit(1);
    }
    reap("child", pid);
    return 0;
}
