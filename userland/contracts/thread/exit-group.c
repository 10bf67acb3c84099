/* How a multi-threaded process ends: exit() from any thread ends them all
 * with its status; the main thread leaving with pthread_exit lets the
 * others go on, and the process then ends with the last one, with that
 * thread's status; a fatal
 * signal in one thread kills the whole process. */
#include "common.h"
#include <pthread.h>

static void *exit_three(void *arg)
{
    (void)arg;
    usleep(20000);
    exit(3); /* exit_group */
}

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void *outlive_main(void *arg)
{
    (void)arg;
    usleep(50000);
    out("  worker still runs after the main thread left");
    exit(7);
}

static void *last_raw_exit(void *arg)
{
    (void)arg;
    usleep(50000);
    out("  last thread leaves with exit(2) status 5");
    syscall(SYS_exit, 5);
    return NULL;
}

static void *crash(void *arg)
{
    (void)arg;
    usleep(20000);
    volatile int *volatile bad = (int *)8;
    *bad = 1;
    return NULL;
}

static void run(const char *label, void *(*fn)(void *), int main_leaves)
{
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t, s;
        pthread_create(&s, NULL, sleeper, NULL);
        pthread_create(&t, NULL, fn, NULL);
        if (main_leaves)
            pthread_exit(NULL);
        for (;;)
            pause();
    }
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        out("%s: killed by %s", label, signame(WTERMSIG(st)));
    else
        out("%s: exit status %d", label, WEXITSTATUS(st));
}

int main(void)
{
    run("exit(3) in a thread", exit_three, 0);
    run("main thread pthread_exit, worker exit(7)", outlive_main, 1);
    /* With the sleeper alive the process would go on: kill it from the
     * last worker instead. */
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t;
        pthread_create(&t, NULL, last_raw_exit, NULL);
        pthread_exit(NULL);
    }
    int st;
    waitpid(pid, &st, 0);
    /* The process reports how its last thread ended (Linux 6.1). */
    out("main thread pthread_exit, last thread exit(2) 5: %s", wstatus(st));
    run("SIGSEGV in a thread", crash, 0);
    return 0;
}
