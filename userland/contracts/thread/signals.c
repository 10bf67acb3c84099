/* Signals and threads: masks are per thread, tgkill reaches the thread
 * named, a signal sent to the process goes to a thread that does not
 * block it, and sigwait in one thread takes a process signal. */
#include "common.h"
#include <pthread.h>

static volatile pid_t handled_by;
static volatile int handled;
static pid_t worker_tid;
static pthread_barrier_t ready;
static volatile int stop_worker;

static void on_usr(int sig)
{
    (void)sig;
    handled_by = (pid_t)syscall(SYS_gettid);
    handled++;
}

static void *worker(void *arg)
{
    (void)arg;
    worker_tid = (pid_t)syscall(SYS_gettid);
    /* This thread unblocks SIGUSR2 (the main thread blocks it). */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    pthread_sigmask(SIG_BLOCK, NULL, &set);
    out("worker: SIGUSR2 blocked: %s", yesno(sigismember(&set, SIGUSR2)));
    pthread_barrier_wait(&ready);
    while (!stop_worker)
        usleep(1000);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN);
    int sig = 0;
    int rc = sigwait(&set, &sig);
    out("sigwait in a thread: rc %d, got SIGRTMIN: %s", rc, yesno(sig == SIGRTMIN));
    return NULL;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_usr;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGRTMIN);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    pthread_barrier_init(&ready, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_barrier_wait(&ready);

    /* The worker's unblock did not change the main thread's mask. */
    pthread_sigmask(SIG_BLOCK, NULL, &set);
    out("main: SIGUSR2 still blocked: %s", yesno(sigismember(&set, SIGUSR2)));

    /* tgkill to the worker: its handler runs on the worker. */
    handled = 0;
    check("tgkill(worker, SIGUSR1)", syscall(SYS_tgkill, getpid(), worker_tid, SIGUSR1));
    while (!handled)
        usleep(1000);
    out("SIGUSR1 by tgkill handled by the worker: %s", yesno(handled_by == worker_tid));

    /* tgkill to ourselves: handled here, before the call returns. */
    handled = 0;
    check("tgkill(self, SIGUSR1)", syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1));
    out("SIGUSR1 to self handled at once by the main thread: %s", yesno(handled == 1 && handled_by == syscall(SYS_gettid)));

    /* kill() to the process: only the worker does not block SIGUSR2. */
    handled = 0;
    check("kill(getpid(), SIGUSR2)", kill(getpid(), SIGUSR2));
    while (!handled)
        usleep(1000);
    out("SIGUSR2 to the process handled by the worker: %s", yesno(handled_by == worker_tid));

    /* A thread id from another process is not ours. */
    show("tgkill(pid, pid+1000000)", syscall(SYS_tgkill, getpid(), getpid() + 1000000, 0));
    show("tgkill(1, worker)", syscall(SYS_tgkill, 1, worker_tid, 0));
    show("tkill(worker, 0)", syscall(SYS_tkill, worker_tid, 0));

    stop_worker = 1;
    pthread_join(t, NULL);
    /* join returns once the kernel cleared the thread's tid word, which
     * can be a moment before the thread is gone. */
    usleep(50000);
    show("tkill(joined worker, 0)", syscall(SYS_tkill, worker_tid, 0));

    /* sigwait in a thread takes a process-directed signal everyone blocks. */
    pthread_create(&t, NULL, waiter, NULL);
    usleep(20000);
    kill(getpid(), SIGRTMIN);
    pthread_join(t, NULL);
    return 0;
}
