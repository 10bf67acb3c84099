/* pthread_cancel and pthread_kill with glibc: deferred cancellation at a
 * cancellation point (read on an empty pipe, nanosleep, pthread_cond_wait)
 * running cleanup handlers in reverse order and unwinding (glibc loads
 * libgcc_s for it), cancellation disabled then enabled, asynchronous
 * cancellation of a spinning thread; pthread_kill delivering a signal to
 * one thread (its handler sees its own thread id), sigwait in a thread,
 * and pthread_kill with signal 0 on a live thread. */
#include "common.h"
#include <pthread.h>

static int fds[2];
static void cleanup(void *arg) { out("cleanup %s", (const char *)arg); }

static void *reader(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, "outer");
    pthread_cleanup_push(cleanup, "inner");
    char c;
    ssize_t r = read(fds[0], &c, 1);
    out("read returned %zd (not reached)", r);
    pthread_cleanup_pop(0);
    pthread_cleanup_pop(0);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, "sleeper");
    sleep(100);
    pthread_cleanup_pop(0);
    return NULL;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static void unlock(void *arg) { pthread_mutex_unlock(arg); out("cleanup unlocks the mutex"); }
static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    pthread_cleanup_push(unlock, &mu);
    for (;;)
        pthread_cond_wait(&cv, &mu);
    pthread_cleanup_pop(1);
    return NULL;
}

static volatile int disabled_ready;
static void *disabled(void *arg)
{
    (void)arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    disabled_ready = 1;
    usleep(100000); /* a cancellation point, but cancellation is disabled */
    out("disabled: slept through the request");
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    pthread_testcancel();
    out("not reached");
    return NULL;
}

static volatile int spin_ready;
static void *spinner(void *arg)
{
    (void)arg;
    int old;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
    spin_ready = 1;
    for (volatile unsigned long i = 0;; i++)
        ;
    return NULL;
}

static pthread_t target;
static volatile int handled_by_target;
static void on_usr1(int sig)
{
    (void)sig;
    handled_by_target = pthread_equal(pthread_self(), target) ? 1 : 2;
}
static void *victim(void *arg)
{
    (void)arg;
    while (!handled_by_target)
        usleep(1000);
    return NULL;
}

static void *sigwaiter(void *arg)
{
    sigset_t *set = arg;
    int sig = 0;
    int r = sigwait(set, &sig);
    return (void *)(long)(r == 0 ? sig : -r);
}

static void join_report(const char *what, pthread_t t)
{
    void *ret;
    int r = pthread_join(t, &ret);
    out("%s: join %s, canceled: %s", what, errname(r), ret == PTHREAD_CANCELED ? "yes" : "no");
}

int main(void)
{
    pipe(fds);
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    usleep(50000);
    int r = pthread_cancel(t); /* its cleanup handlers print as it goes */
    join_report("reader", t);
    out("pthread_cancel returned: %s", errname(r));

    pthread_create(&t, NULL, sleeper, NULL);
    usleep(50000);
    pthread_cancel(t);
    join_report("sleeper", t);

    pthread_create(&t, NULL, waiter, NULL);
    usleep(50000);
    pthread_cancel(t);
    join_report("cond waiter", t);
    out("mutex free again: %s", errname(pthread_mutex_trylock(&mu)));
    pthread_mutex_unlock(&mu);

    pthread_create(&t, NULL, disabled, NULL);
    while (!disabled_ready)
        usleep(1000);
    pthread_cancel(t);
    join_report("disabled then enabled", t);

    pthread_create(&t, NULL, spinner, NULL);
    while (!spin_ready)
        usleep(1000);
    pthread_cancel(t);
    join_report("async spinner", t);

    struct sigaction sa = { .sa_handler = on_usr1 };
    sigaction(SIGUSR1, &sa, NULL);
    pthread_create(&target, NULL, victim, NULL);
    out("pthread_kill 0: %s", errname(pthread_kill(target, 0)));
    out("pthread_kill SIGUSR1: %s", errname(pthread_kill(target, SIGUSR1)));
    pthread_join(target, NULL);
    out("handled by the target thread: %s", handled_by_target == 1 ? "yes" : "no");

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_create(&t, NULL, sigwaiter, &set);
    usleep(20000);
    pthread_kill(t, SIGUSR2);
    void *ret;
    pthread_join(t, &ret);
    out("sigwait in thread got: %s", signame((int)(long)ret));
    out("pthread_kill bad signal: %s", errname(pthread_kill(pthread_self(), 1000)));
    return 0;
}
