/* CPU affinity belongs to each thread: pinning one thread (to CPU 0)
 * leaves the others' masks alone, another thread can read it by thread
 * id, and the pinned thread runs on CPU 0 from then on. */
#include "common.h"
#include <pthread.h>
#include <sched.h>

static pid_t worker_tid;
static pthread_barrier_t pinned, checked;

static void *worker(void *arg)
{
    (void)arg;
    worker_tid = (pid_t)syscall(SYS_gettid);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    show("worker: sched_setaffinity(0, {0})", sched_setaffinity(0, sizeof one, &one));
    int on_zero = 1;
    for (int i = 0; i < 50; i++) {
        if (sched_getcpu() != 0)
            on_zero = 0;
        sched_yield();
    }
    out("worker: always on CPU 0 afterwards: %s", yesno(on_zero));
    pthread_barrier_wait(&pinned);
    pthread_barrier_wait(&checked);
    return NULL;
}

int main(void)
{
    cpu_set_t before, after, theirs;
    sched_getaffinity(0, sizeof before, &before);
    pthread_barrier_init(&pinned, NULL, 2);
    pthread_barrier_init(&checked, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_barrier_wait(&pinned);
    sched_getaffinity(0, sizeof after, &after);
    out("main's mask unchanged: %s", yesno(CPU_EQUAL(&before, &after)));
    out("main's mask has every online CPU: %s", yesno(CPU_COUNT(&after) == sysconf(_SC_NPROCESSORS_ONLN)));
    show("sched_getaffinity(worker tid)", sched_getaffinity(worker_tid, sizeof theirs, &theirs) < 0 ? -1 : 0);
    out("worker's mask is {0}: %s", yesno(CPU_COUNT(&theirs) == 1 && CPU_ISSET(0, &theirs)));
    pthread_barrier_wait(&checked);
    pthread_join(t, NULL);
    return 0;
}
