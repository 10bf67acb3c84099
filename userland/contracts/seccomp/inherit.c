/* Filters are inherited by fork children and threads and kept across
 * execve (with no_new_privs); a child's later filter does not reach its
 * parent; /proc/PID/status's Seccomp and Seccomp_filters lines and
 * PR_GET_SECCOMP in each. */
#include "seccomp.h"
#include <pthread.h>

static void *in_thread(void *arg)
{
    (void)arg;
    return (void *)rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        show("exec'd: getppid", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0));
        show("exec'd: getpgid", rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0));
        show("exec'd: PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
        sc_status("exec'd", "/proc/self/status");
        return 0;
    }
    prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
    check("install", sc_on(0, SYS_getppid, RET_ERRNO | 42));
    show("getppid", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0));
    show("PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
    sc_status("self", "/proc/self/status");

    pthread_t t;
    void *v;
    pthread_create(&t, NULL, in_thread, NULL);
    pthread_join(t, &v);
    out("thread: getppid %ld", (long)v);

    int p[2];
    if (pipe(p))
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        show("child: getppid", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0));
        check("child: install", sc_on(0, SYS_getpgid, RET_ERRNO | 43));
        show("child: getpgid", rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0));
        sc_status("child", "/proc/self/status");
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/status", (int)getppid());
        /* getppid is filtered: the parent's pid comes from the pipe. */
        int ppid = 0;
        if (read(p[0], &ppid, sizeof ppid) != sizeof ppid)
            _exit(1);
        snprintf(path, sizeof path, "/proc/%d/status", ppid);
        sc_status("child reads parent", path);
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        out("execl: %s", errname(errno));
        _exit(1);
    }
    int me = getpid();
    if (write(p[1], &me, sizeof me) != sizeof me)
        return 1;
    reap("child", pid);
    show("parent: getpgid unfiltered", rawsys(SYS_getpgid, 0, 0, 0, 0, 0, 0) == getpgrp());
    sc_status("parent after", "/proc/self/status");
    return 0;
}
