/* glibc's pthreads over clone3/futex: create and join with return values,
 * detached threads, a mutex-protected counter, a condition-variable queue
 * between producer and consumers, pthread_once, barriers, rwlocks,
 * thread attributes (stack size, detach state), thread names, and
 * pthread_exit from the main thread leaving the others to finish. */
#include "common.h"
#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long counter;
static int queue[16], qhead, qtail, done;
static long consumed_sum;

static void *add(void *arg)
{
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&mu);
        counter++;
        pthread_mutex_unlock(&mu);
    }
    return (void *)((long)arg * 10);
}

static void *consumer(void *arg)
{
    long got = 0;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (qhead == qtail && !done)
            pthread_cond_wait(&cv, &mu);
        if (qhead == qtail && done)
            break;
        consumed_sum += queue[qhead++ % 16];
        got++;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    return (void *)got;
}

static int once_calls;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void once_fn(void) { once_calls++; }

static pthread_barrier_t bar;
static int phase[4];
static void *barrier_worker(void *arg)
{
    long id = (long)arg;
    pthread_once(&once, once_fn);
    phase[id] = 1;
    int r = pthread_barrier_wait(&bar);
    int all = phase[0] && phase[1] && phase[2] && phase[3];
    return (void *)(long)((r == PTHREAD_BARRIER_SERIAL_THREAD ? 2 : 0) | all);
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static void *try_write(void *arg)
{
    (void)arg;
    return (void *)(long)pthread_rwlock_trywrlock(&rw);
}
static void *try_read(void *arg)
{
    (void)arg;
    int r = pthread_rwlock_tryrdlock(&rw);
    if (r == 0)
        pthread_rwlock_unlock(&rw);
    return (void *)(long)r;
}

static void *big_stack(void *arg)
{
    (void)arg;
    volatile char buf[4 << 20];
    buf[0] = 1;
    buf[sizeof buf - 1] = 2;
    return (void *)(long)(buf[0] + buf[sizeof buf - 1]);
}

static int late_fd;
static void *late(void *arg)
{
    (void)arg;
    usleep(100000);
    out("late thread still runs after main's pthread_exit");
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        show("pthread_create", pthread_create(&t[i], NULL, add, (void *)i));
    long total = 0;
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        total += (long)ret;
    }
    out("counter: %ld, return values sum: %ld", counter, total);

    pthread_t c[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&c[i], NULL, consumer, NULL);
    long produced = 0;
    for (int v = 1; v <= 1000; v++) {
        pthread_mutex_lock(&mu);
        while (qtail - qhead == 16)
            pthread_cond_wait(&cv, &mu);
        queue[qtail++ % 16] = v;
        produced += v;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    long items = 0;
    for (int i = 0; i < 3; i++) {
        void *ret;
        pthread_join(c[i], &ret);
        items += (long)ret;
    }
    out("condvar queue: %ld items, sums equal: %s", items, produced == consumed_sum ? "yes" : "no");

    pthread_barrier_init(&bar, NULL, 4);
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, barrier_worker, (void *)i);
    int serial = 0, saw_all = 0;
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        serial += ((long)ret & 2) != 0;
        saw_all += ((long)ret & 1) != 0;
    }
    out("barrier: serial threads %d, saw all phases %d, once calls %d", serial, saw_all, once_calls);

    pthread_rwlock_rdlock(&rw);
    void *r1, *r2;
    pthread_create(&t[0], NULL, try_write, NULL);
    pthread_join(t[0], &r1);
    pthread_create(&t[0], NULL, try_read, NULL);
    pthread_join(t[0], &r2);
    out("rwlock read-held: trywrlock %s, tryrdlock %s", errname((long)r1), errname((long)r2));
    pthread_rwlock_unlock(&rw);
    pthread_rwlock_wrlock(&rw);
    pthread_create(&t[0], NULL, try_read, NULL);
    pthread_join(t[0], &r2);
    out("rwlock write-held: tryrdlock %s", errname((long)r2));
    pthread_rwlock_unlock(&rw);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8 << 20);
    size_t ss;
    pthread_attr_getstacksize(&attr, &ss);
    out("attr stack size: %zu", ss);
    void *ret;
    pthread_create(&t[0], &attr, big_stack, NULL);
    pthread_join(t[0], &ret);
    out("thread with 8 MiB stack used 4 MiB: %ld", (long)ret);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t[0], &attr, add, NULL);
    int ds;
    pthread_attr_getdetachstate(&attr, &ds);
    out("detached: %s", ds == PTHREAD_CREATE_DETACHED ? "yes" : "no");
    pthread_attr_destroy(&attr);

    pthread_setname_np(pthread_self(), "glibc-main");
    char name[16];
    pthread_getname_np(pthread_self(), name, sizeof name);
    out("thread name: %s", name);
    out("pthread_equal self: %d", pthread_equal(pthread_self(), pthread_self()));

    (void)late_fd;
    pthread_create(&t[1], NULL, late, NULL);
    pthread_exit(NULL); /* the process lives on until the last thread exits */
}
