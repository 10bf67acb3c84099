/* pthread_create and pthread_join: threads share the process id and
 * memory, each has its own thread id, and join returns each result once
 * the thread is gone (CLONE_CHILD_CLEARTID clears its tid word and wakes
 * the futex join sleeps on). */
#include "common.h"
#include <pthread.h>

#define THREADS 4

static int shared_value;
static pid_t tids[THREADS];

static void *worker(void *arg)
{
    long n = (long)arg;
    tids[n] = (pid_t)syscall(SYS_gettid);
    long sum = 0;
    for (long i = 1; i <= 1000 * (n + 1); i++)
        sum += i;
    __atomic_add_fetch(&shared_value, 1, __ATOMIC_SEQ_CST);
    if (getpid() != (pid_t)syscall(SYS_getpid))
        out("getpid differs from the raw call");
    return (void *)sum;
}

int main(void)
{
    pid_t pid = getpid();
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        check_rc("pthread_create", pthread_create(&threads[i], NULL, worker, (void *)i));
    for (long i = 0; i < THREADS; i++) {
        void *result;
        check_rc("pthread_join", pthread_join(threads[i], &result));
        out("thread %ld returned %ld", i, (long)result);
    }
    out("shared counter: %d", shared_value);
    int distinct = 1;
    for (int i = 0; i < THREADS; i++) {
        if (tids[i] == pid || tids[i] <= 0)
            distinct = 0;
        for (int j = 0; j < i; j++)
            if (tids[i] == tids[j])
                distinct = 0;
    }
    out("thread ids distinct from each other and the pid: %s", yesno(distinct));
    out("main thread id is the pid: %s", yesno(syscall(SYS_gettid) == pid));
    return 0;
}
