/* Threads contending for a mutex and a condition variable (futex waits
 * and wakes between threads of one process, at -smp 2 on two CPUs). */
#include "common.h"
#include <pthread.h>

#define THREADS 4
#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn;

static void *adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

/* Two threads take turns 1000 times: each waits for its turn on the
 * condition variable. */
static void *taker(void *arg)
{
    int me = (int)(long)arg;
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&lock);
        while (turn != me)
            pthread_cond_wait(&cond, &lock);
        turn = 1 - me;
        counter++;
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        check_rc("pthread_create", pthread_create(&t[i], NULL, adder, NULL));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    out("counter after %d threads x %d: %ld", THREADS, ROUNDS, counter);

    counter = 0;
    for (long i = 0; i < 2; i++)
        check_rc("pthread_create", pthread_create(&t[i], NULL, taker, (void *)i));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    out("turns taken: %ld, last turn %d", counter, turn);
    return 0;
}
