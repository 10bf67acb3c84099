/* The tracer is the traced process's parent (as gdb is of the program it
 * runs) and follows its threads (PTRACE_O_TRACECLONE): the new thread's
 * first stop, and its exit reported to the tracer's wait (__WALL) under
 * the thread's id (its own exit code: the process still runs). */
#include "ptrace.h"
#include <pthread.h>

static void *worker(void *arg)
{
    (void)arg;
    return NULL;
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        pthread_join(t, NULL);
        raise(SIGSTOP);
        _exit(7);
    }
    pwait("stop", pid);
    pt("SETOPTIONS TRACECLONE", ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACECLONE));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("clone", pid);
    unsigned long tid = 0;
    ptrace(PTRACE_GETEVENTMSG, pid, 0, &tid);
    out("new thread is not the process: %s", yesno(tid != (unsigned long)pid && tid != 0));
    int st;
    pid_t r = waitpid(tid, &st, __WALL);
    out("thread's first stop: %s%s", pstatus(st), r == (pid_t)tid ? "" : " (other pid)");
    pt("CONT thread", ptrace(PTRACE_CONT, tid, 0, 0));
    pt("CONT process", ptrace(PTRACE_CONT, pid, 0, 0));
    r = waitpid(tid, &st, __WALL);
    out("thread: %s%s", pstatus(st), r == (pid_t)tid ? "" : " (other pid)");
    pwait("process", pid);
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("process", pid);
    r = waitpid(-1, &st, __WALL);
    out("then: %s", r < 0 ? errname(errno) : "more");
    return 0;
}
