/* Three threads for gdb's `info threads`: main breaks in all_started()
 * once both workers run; the workers wait for main to finish. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started, done;

void all_started(void)
{
    __asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    started++;
    pthread_cond_broadcast(&cond);
    while (!done)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_mutex_lock(&lock);
    while (started < 2)
        pthread_cond_wait(&cond, &lock);
    all_started();
    done = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("threads joined\n");
    return 0;
}
