/* Process exit with glibc: atexit and on_exit handlers in reverse order,
 * destructors of the program and of a shared library it links with, a
 * handler registered from a handler, stdio flushed by exit but not by
 * _exit, and exit() from a thread running the handlers once. */
#include "common.h"
#include <pthread.h>

int kv_add(int a, int b); /* links libkvtest.so: its destructor runs last */

static void h1(void) { out("atexit 1"); }
static void h2(void) { out("atexit 2"); }
static void late(void) { out("registered during exit, runs next"); }
static void h3(void) { out("atexit 3 registers another"); atexit(late); }
static void onexit(int status, void *arg) { out("on_exit status %d arg %s", status, (char *)arg); }

__attribute__((constructor)) static void ctor(void) { out("program constructor"); }
__attribute__((destructor)) static void dtor(void) { out("program destructor"); }

static void *exiter(void *arg)
{
    (void)arg;
    printf("thread's buffered line\n");
    exit(3);
}

int main(void)
{
    out("main starts, kv_add %d", kv_add(1, 1));
    /* _exit in a child: no handlers, no flush. */
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        atexit(h1);
        printf("child's buffered line (lost)");
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child with _exit: status %d", WEXITSTATUS(st));

    /* exit from a thread in a child: handlers run once, status 3. */
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        atexit(h1);
        pthread_t t;
        pthread_create(&t, NULL, exiter, NULL);
        pthread_join(t, NULL);
        out("not reached");
        _exit(9);
    }
    waitpid(pid, &st, 0);
    out("child exiting from a thread: status %d", WEXITSTATUS(st));

    atexit(h1);
    on_exit(onexit, "hello");
    atexit(h2);
    atexit(h3);
    printf("stdio line flushed by exit\n");
    exit(0);
}
