/* Shared futexes meet across processes: a child waiting on MAP_SHARED
 * anonymous memory is woken by its parent's FUTEX_WAKE, and a child
 * waiting on a MAP_SHARED file page at another address than the parent's
 * mapping is woken through the parent's address. Private futexes (and
 * shared ones in private memory) never meet across processes. */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>

/* Exit status of a waiting child: what its wait returned. */
static int code_of(long r)
{
    return r == 0 ? 0 : r == -EAGAIN ? 1 : r == -ETIMEDOUT ? 2 : r == -EINTR ? 3 : 4;
}

static const char *code_name(int st)
{
    static const char *names[] = {"woken", "EAGAIN", "ETIMEDOUT", "EINTR", "other"};
    return WIFEXITED(st) && WEXITSTATUS(st) <= 4 ? names[WEXITSTATUS(st)] : "crashed";
}

/* Wakes the futex at w (shared) until one waiter is woken: the child
 * may not have started waiting yet. */
static long wake_one_eventually(volatile int *w)
{
    for (int i = 0; i < 5000; i++) {
        long r = fx(w, FUTEX_WAKE, 1, NULL, NULL, 0);
        if (r != 0)
            return r;
        usleep(1000);
    }
    return 0;
}

int main(void)
{
    struct timespec five = {5, 0};

    /* 1. MAP_SHARED anonymous memory across fork. */
    volatile int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(code_of(fx(shared, FUTEX_WAIT, 0, &five, NULL, 0)));
    res("anonymous: wake", wake_one_eventually(shared));
    int st;
    waitpid(pid, &st, 0);
    out("anonymous: child %s", code_name(st));

    /* 2. A shared file page mapped at two addresses. */
    int fd = open("/tmp/futex-shared-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
    ftruncate(fd, 8192);
    volatile int *mine = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    pid = fork();
    if (pid == 0) {
        volatile int *theirs = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (theirs == mine)
            _exit(5);
        _exit(code_of(fx(theirs + 1024 + 3, FUTEX_WAIT, 0, &five, NULL, 0)));
    }
    res("file: wake another word of the page", fx(mine + 1024 + 2, FUTEX_WAKE, 1, NULL, NULL, 0));
    res("file: wake", wake_one_eventually(mine + 1024 + 3));
    waitpid(pid, &st, 0);
    out("file: child %s", code_name(st));
    close(fd);
    unlink("/tmp/futex-shared-file");

    /* 3. Private futexes do not cross processes: the child's private wait
     * times out whatever the parent wakes. */
    struct timespec short_wait = {0, 300 * 1000000L};
    pid = fork();
    if (pid == 0)
        _exit(code_of(fx(shared + 1, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &short_wait, NULL, 0)));
    usleep(50000);
    res("private: shared wake of the child's private futex", fx(shared + 1, FUTEX_WAKE, 1, NULL, NULL, 0));
    res("private: private wake of the child's private futex", fx(shared + 1, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0));
    waitpid(pid, &st, 0);
    out("private: child %s", code_name(st));

    /* 4. A shared futex in private memory is keyed by address space. */
    static int private_word;
    pid = fork();
    if (pid == 0)
        _exit(code_of(fx(&private_word, FUTEX_WAIT, 0, &short_wait, NULL, 0)));
    usleep(50000);
    res("private memory: wake", fx(&private_word, FUTEX_WAKE, 1, NULL, NULL, 0));
    waitpid(pid, &st, 0);
    out("private memory: child %s", code_name(st));

    /* 5. The word is read when the wait starts: a child whose value is
     * stale gets EAGAIN. */
    shared[2] = 7;
    pid = fork();
    if (pid == 0)
        _exit(code_of(fx(shared + 2, FUTEX_WAIT, 6, &five, NULL, 0)));
    waitpid(pid, &st, 0);
    out("stale value: child %s", code_name(st));
    return 0;
}
