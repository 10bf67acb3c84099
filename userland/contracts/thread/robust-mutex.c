/* Robust mutexes: when the owner of a robust mutex dies holding it (a
 * thread that exits, a process that exits), the kernel walks its robust
 * list (set_robust_list), marks the futex word FUTEX_OWNER_DIED and wakes
 * a waiter: the next locker gets EOWNERDEAD instead of waiting forever. */
#include "common.h"
#include <pthread.h>
#include <sys/mman.h>

static pthread_mutex_t *shared;

static void *hold_and_exit(void *arg)
{
    pthread_mutex_t *m = arg;
    out("thread lock: %s", errname(pthread_mutex_lock(m)));
    return NULL; /* ends still holding it */
}

static void *wait_for_lock(void *arg)
{
    pthread_mutex_t *m = arg;
    int rc = pthread_mutex_lock(m);
    out("waiter woken by the owner's death: %s", errname(rc));
    if (rc == EOWNERDEAD)
        pthread_mutex_consistent(m);
    pthread_mutex_unlock(m);
    return NULL;
}

static void init_robust(pthread_mutex_t *m, int pshared)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (pshared)
        pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(m, &a);
}

int main(void)
{
    struct { long head, len; } got = {1, 0};
    show("get_robust_list(0) before any robust lock", syscall(SYS_get_robust_list, 0, &got.head, &got.len));
    out("  head set: %s, len %ld", yesno(got.head != 0), got.len);
    show("set_robust_list(bad length)", syscall(SYS_set_robust_list, 0L, 7L));

    static pthread_mutex_t m;
    init_robust(&m, 0);
    pthread_t t;
    pthread_create(&t, NULL, hold_and_exit, &m);
    pthread_join(t, NULL);
    int rc = pthread_mutex_lock(&m);
    out("lock after the owner thread exited: %s", errname(rc));
    if (rc == EOWNERDEAD) {
        out("consistent: %s", errname(pthread_mutex_consistent(&m)));
        pthread_mutex_unlock(&m);
        out("lock again: %s", errname(pthread_mutex_lock(&m)));
        pthread_mutex_unlock(&m);
    }

    /* Across processes: a child dies holding a process-shared mutex
     * while the parent's thread waits for it. */
    shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    init_robust(shared, 1);
    int pipefd[2];
    pipe(pipefd);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_mutex_lock(shared);
        write(pipefd[1], "x", 1);
        usleep(100000);
        _exit(0);
    }
    char c;
    read(pipefd[0], &c, 1);
    pthread_create(&t, NULL, wait_for_lock, shared);
    pthread_join(t, NULL);
    reap("owner process", pid);
    return 0;
}
