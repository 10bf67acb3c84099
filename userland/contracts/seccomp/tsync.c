/* SECCOMP_FILTER_FLAG_TSYNC: the new filter reaches every thread of the
 * process (and no_new_privs with it); a thread whose filters are not an
 * ancestor of the caller's blocks the sync: the call returns that
 * thread's id (or ESRCH with TSYNC_ESRCH) and installs nothing.
 * KILL_THREAD in one thread of several ends that thread alone. */
#include "seccomp.h"
#include <pthread.h>

static int go[2], back[2];
static volatile long tid_of_worker;

/* The worker runs commands from the main thread: 'p' getppid, 'n' reads
 * its no_new_privs, 'f' installs its own filter, 'k' calls getpgid
 * (KILL_THREAD'd later), 'q' quits. */
static void *worker(void *arg)
{
    (void)arg;
    tid_of_worker = syscall(SYS_gettid);
    char c;
    while (read(go[0], &c, 1) == 1) {
        long r = 0;
        if (c == 'p')
            r = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
        else if (c == 'n')
            r = prctl(PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0);
        else if (c == 'f')
            r = sc_on(0, SYS_getsid, RET_ERRNO | 5);
        else if (c == 'k')
            r = rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0);
        else if (c == 'q')
            return NULL;
        if (write(back[1], &r, sizeof r) != sizeof r)
            return NULL;
    }
    return NULL;
}

static long ask(char c)
{
    long r = -12345;
    if (write(go[1], &c, 1) != 1 || read(back[0], &r, sizeof r) != sizeof r)
        return -99999;
    return r;
}

int main(void)
{
    if (pipe(go) || pipe(back))
        return 1;
    pid_t parent = getppid();
    pid_t pg = getpgrp();
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    /* Root needs no no_new_privs; set it after the thread started, so only
     * this thread has it until the sync. */
    show("worker: no_new_privs", ask('n'));
    prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
    show("worker: no_new_privs after main set it", ask('n'));
    show("TSYNC install", sc_on(FLAG_TSYNC, SYS_getppid, RET_ERRNO | 21));
    show("main: getppid", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0));
    show("worker: getppid", ask('p'));
    show("worker: no_new_privs after the sync", ask('n'));
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid_of_worker);
    sc_status("worker status", path);

    /* The worker's chain grows past the main thread's. */
    show("worker: own filter", ask('f'));
    long r = sc_on(FLAG_TSYNC, SYS_getpgid, RET_ERRNO | 22);
    out("TSYNC blocked: returned the worker's tid: %s", yesno(r == tid_of_worker));
    show("main: getpgid not filtered", rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0) == pg);
    show("TSYNC|TSYNC_ESRCH blocked", sc_on(FLAG_TSYNC | FLAG_TSYNC_ESRCH, SYS_getpgid, RET_ERRNO | 22));
    show("without TSYNC", sc_on(0, SYS_getpgid, RET_ERRNO | 23));
    show("main: getpgid", rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0));
    show("worker: getpgid not filtered", ask('k') == pg);
    sc_status("main status", "/proc/self/status");
    out("parent unchanged: %s", yesno(parent != 0));
    if (write(go[1], "q", 1) != 1) /* no answer: the worker returns */
        return 1;
    pthread_join(t, NULL);

    /* KILL_THREAD in a thread of several: that thread alone ends. (musl's
     * pthread_join would wait for ever for a thread that did not return,
     * so the thread's end is seen by tgkill failing with ESRCH.) */
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t2;
        tid_of_worker = 0;
        pthread_create(&t2, NULL, worker, NULL);
        for (int i = 0; i < 1000 && !tid_of_worker; i++)
            msleep(10);
        show("child: TSYNC KILL_THREAD", sc_on(FLAG_TSYNC, SYS_getpgid, RET_KILL_THREAD));
        if (write(go[1], "k", 1) != 1)
            _exit(3);
        int gone = 0;
        for (int i = 0; i < 1000 && !gone; i++) {
            if (syscall(SYS_tgkill, getpid(), tid_of_worker, 0) < 0 && errno == ESRCH)
                gone = 1;
            else
                msleep(10);
        }
        out("child: worker gone: %s, main thread alive", yesno(gone));
        _exit(0);
    }
    reap("KILL_THREAD child", pid);
    return 0;
}
