/* Robust and special mutexes with glibc: a thread that exits holding a
 * robust mutex makes the next lock return EOWNERDEAD, pthread_mutex_consistent
 * repairs it, an unrepaired one becomes ENOTRECOVERABLE; a process-shared
 * robust mutex in MAP_SHARED memory whose owner process dies (the kernel
 * walks its robust list); error-checking mutexes (EDEADLK, EPERM) and
 * recursive ones; timed locks timing out. */
#include "common.h"
#include <pthread.h>
#include <sys/mman.h>

static pthread_mutex_t rm;

static void *die_holding(void *arg)
{
    pthread_mutex_t *m = arg;
    out("thread lock: %s", errname(pthread_mutex_lock(m)));
    return NULL; /* exits with it held */
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&rm, &a);
    pthread_t t;
    pthread_create(&t, NULL, die_holding, &rm);
    pthread_join(t, NULL);
    out("lock after owner died: %s", errname(pthread_mutex_lock(&rm)));
    out("consistent: %s", errname(pthread_mutex_consistent(&rm)));
    out("unlock: %s", errname(pthread_mutex_unlock(&rm)));
    out("lock again: %s", errname(pthread_mutex_lock(&rm)));
    pthread_mutex_unlock(&rm);

    pthread_create(&t, NULL, die_holding, &rm);
    pthread_join(t, NULL);
    out("lock after second death: %s", errname(pthread_mutex_lock(&rm)));
    out("unlock without consistent: %s", errname(pthread_mutex_unlock(&rm)));
    out("lock now: %s", errname(pthread_mutex_lock(&rm)));

    /* Across processes. */
    pthread_mutex_t *sm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(sm, &a);
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_mutex_lock(sm);
        write(p[1], "x", 1);
        pause();
        _exit(0);
    }
    char c;
    read(p[0], &c, 1);
    out("trylock while child holds: %s", errname(pthread_mutex_trylock(sm)));
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    out("child killed by %s", signame(WTERMSIG(st)));
    out("lock after owner process died: %s", errname(pthread_mutex_lock(sm)));
    out("consistent: %s", errname(pthread_mutex_consistent(sm)));
    out("unlock: %s", errname(pthread_mutex_unlock(sm)));

    /* Error-checking and recursive mutexes. */
    pthread_mutexattr_t e;
    pthread_mutexattr_init(&e);
    pthread_mutexattr_settype(&e, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t em;
    pthread_mutex_init(&em, &e);
    out("errorcheck unlock unowned: %s", errname(pthread_mutex_unlock(&em)));
    pthread_mutex_lock(&em);
    out("errorcheck relock: %s", errname(pthread_mutex_lock(&em)));
    pthread_mutex_unlock(&em);
    pthread_mutexattr_settype(&e, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_t rec;
    pthread_mutex_init(&rec, &e);
    out("recursive: %s %s %s", errname(pthread_mutex_lock(&rec)), errname(pthread_mutex_lock(&rec)),
        errname(pthread_mutex_trylock(&rec)));
    pthread_mutex_unlock(&rec);
    pthread_mutex_unlock(&rec);
    pthread_mutex_unlock(&rec);
    out("recursive released: %s", errname(pthread_mutex_trylock(&rec)));

    pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&plain);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    out("timedlock held by self: %s", errname(pthread_mutex_timedlock(&plain, &ts)));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    out("clocklock monotonic: %s", errname(pthread_mutex_clocklock(&plain, CLOCK_MONOTONIC, &ts)));
    return 0;
}
