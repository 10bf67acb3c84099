/* SIGEV_THREAD_ID: the timer's signal goes to the thread named, even
 * while another thread could take it. */
#include "timers.h"
#include <pthread.h>

static volatile pid_t got_tid;
static volatile int stop;
static pid_t worker_tid;

static void handler(int s, siginfo_t *si, void *uc)
{
    (void)s; (void)si; (void)uc;
    got_tid = gettid();
}

static void *worker(void *arg)
{
    (void)arg;
    worker_tid = gettid();
    while (!stop)
        msleep(5);
    return NULL;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR2, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!worker_tid)
        msleep(1);
    struct ksigevent ev = {0};
    ev.notify = SIGEV_THREAD_ID;
    ev.signo = SIGUSR2;
    ev.tid = worker_tid;
    int id;
    rcheck("create for the worker", tcreate(CLOCK_MONOTONIC, &ev, &id));
    rcheck("arm 10 ms", tset(id, 0, 10000000, 0, NULL));
    for (int i = 0; i < 500 && !got_tid; i++)
        msleep(10);
    out("taken by the worker: %s", yesno(got_tid == worker_tid));
    got_tid = 0;
    ev.tid = gettid();
    int id2;
    rcheck("create for the main thread", tcreate(CLOCK_MONOTONIC, &ev, &id2));
    rcheck("arm 10 ms", tset(id2, 0, 10000000, 0, NULL));
    for (int i = 0; i < 500 && !got_tid; i++)
        msleep(10);
    out("taken by the main thread: %s", yesno(got_tid == gettid()));
    stop = 1;
    pthread_join(t, NULL);
    return 0;
}
