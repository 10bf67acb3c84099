/* RLIMIT_NPROC: a fork, vfork or new thread fails with EAGAIN once the
 * real user has the limit's number of tasks (zombies count until reaped);
 * root is exempt; an execve after a setuid that moved the real uid to a
 * user over the limit fails with EAGAIN while the user stays over it. */
#include "common.h"
#include <pthread.h>
#include <sys/resource.h>

static void *idle_thread(void *arg)
{
    return arg;
}

static void become_user(rlim_t limit)
{
    struct rlimit r = {limit, limit};
    check("setrlimit NPROC", setrlimit(RLIMIT_NPROC, &r));
    check("setgid 1000", setgid(1000));
    check("setuid 1000", setuid(1000));
}

/* A child that blocks until `hold` is closed. */
static pid_t blocker(int hold[2])
{
    pid_t pid = fork();
    if (pid == 0) {
        close(hold[1]);
        char c;
        read(hold[0], &c, 1);
        _exit(0);
    }
    return pid;
}

int main(void)
{
    /* Root is exempt from its own limit. */
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit r = {1, 1};
        check("root setrlimit NPROC 1", setrlimit(RLIMIT_NPROC, &r));
        pid_t c = fork();
        if (c == 0)
            _exit(0);
        out("root forks past its limit: %s", c < 0 ? errname(errno) : "ok");
        if (c > 0)
            waitpid(c, NULL, 0);
        _exit(0);
    }
    reap("root child", pid);

    /* uid 1000 with a limit of 3 tasks: itself and two more. */
    pid = fork();
    if (pid == 0) {
        become_user(3);
        int hold[2];
        pipe(hold);
        pid_t a = blocker(hold);
        out("first fork: %s", a < 0 ? errname(errno) : "ok");
        pid_t b = blocker(hold);
        out("second fork: %s", b < 0 ? errname(errno) : "ok");
        pid_t c = blocker(hold);
        out("third fork: %s", c < 0 ? errname(errno) : "ok");
        pid_t v = vfork();
        if (v == 0)
            _exit(0);
        out("vfork: %s", v < 0 ? errname(errno) : "ok");
        if (v > 0)
            waitpid(v, NULL, 0);
        pthread_t t;
        int rc = pthread_create(&t, NULL, idle_thread, NULL);
        out("pthread_create: %s", rc ? errname(rc) : "ok");
        if (rc == 0)
            pthread_join(t, NULL);
        /* A zombie still counts; a reaped one does not. */
        kill(a, SIGKILL);
        siginfo_t si;
        memset(&si, 0, sizeof si);
        check("waitid WNOWAIT", waitid(P_PID, a, &si, WEXITED | WNOWAIT));
        pid_t d = fork();
        if (d == 0)
            _exit(0);
        out("fork with a zombie: %s", d < 0 ? errname(errno) : "ok");
        if (d > 0)
            waitpid(d, NULL, 0);
        waitpid(a, NULL, 0);
        d = fork();
        if (d == 0)
            _exit(0);
        out("fork after reaping it: %s", d < 0 ? errname(errno) : "ok");
        if (d > 0)
            waitpid(d, NULL, 0);
        close(hold[0]);
        close(hold[1]);
        while (wait(NULL) > 0)
            ;
        _exit(0);
    }
    reap("uid 1000 child", pid);

    /* execve after moving to a user over the limit. */
    signal(SIGPIPE, SIG_IGN);
    int hold[2];
    pipe(hold);
    pid_t held[2];
    for (int i = 0; i < 2; i++) {
        held[i] = fork();
        if (held[i] == 0) {
            setgid(1000);
            setuid(1000);
            close(hold[1]);
            char c;
            read(hold[0], &c, 1);
            _exit(0);
        }
    }
    close(hold[0]);
    int ready[2];
    pipe(ready);
    int go[2];
    pipe(go);
    pid = fork();
    if (pid == 0) {
        close(hold[1]);
        close(ready[0]);
        close(go[1]);
        msleep(50); /* the two holders have their uid by now */
        become_user(1);
        char *argv[] = {"exit-with", "5", NULL};
        char *envp[] = {NULL};
        execve("/contracts/helpers/exit-with", argv, envp);
        out("execve over the limit: %s", errname(errno));
        write(ready[1], "r", 1);
        char c;
        read(go[0], &c, 1); /* the holders are gone */
        execve("/contracts/helpers/exit-with", argv, envp);
        out("execve under the limit: %s", errname(errno));
        _exit(1);
    }
    close(ready[1]);
    close(go[0]);
    char c;
    read(ready[0], &c, 1);
    close(hold[1]);
    for (int i = 0; i < 2; i++)
        waitpid(held[i], NULL, 0);
    write(go[1], "g", 1);
    reap("exec child", pid);
    return 0;
}
