/* ioprio_set and ioprio_get: the value checks (class and level), the
 * priority of a process that never set one, inheritance across fork (only
 * of a priority with a class), the best priority of a process group, and
 * the permission checks as uid 1000 (the real-time class needs
 * CAP_SYS_ADMIN or CAP_SYS_NICE; another user's process needs
 * CAP_SYS_NICE). */
#include "perm.h"

#define WHO_PROCESS 1
#define WHO_PGRP 2
#define WHO_USER 3
#define VALUE(class, level) ((class) << 13 | (level))

static void get(const char *label, int which, int who)
{
    long r = rawsys(SYS_ioprio_get, which, who, 0, 0, 0, 0);
    if (r < 0)
        out("%s: %s", label, errname((int)-r));
    else
        out("%s: class %ld level %ld", label, r >> 13, r & 0x1fff);
}

static void set(const char *label, int which, int who, int value)
{
    rcheck(label, rawsys(SYS_ioprio_set, which, who, value, 0, 0, 0));
}

static void child_get(const char *label)
{
    pid_t pid = fork();
    if (pid == 0) {
        get(label, WHO_PROCESS, 0);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

static void as_unprivileged(long root_pid)
{
    set("  set RT 0", WHO_PROCESS, 0, VALUE(1, 0));
    set("  set BE 5", WHO_PROCESS, 0, VALUE(2, 5));
    get("  get", WHO_PROCESS, 0);
    get("  get root's process", WHO_PROCESS, (int)root_pid);
    set("  set root's process BE 5", WHO_PROCESS, (int)root_pid, VALUE(2, 5));
}

int main(void)
{
    get("initial", WHO_PROCESS, 0);
    child_get("a child's");
    set("set BE 8", WHO_PROCESS, 0, VALUE(2, 8));
    get("after BE 8", WHO_PROCESS, 0);
    set("set NONE 8", WHO_PROCESS, 0, VALUE(0, 8));
    get("after NONE 8", WHO_PROCESS, 0);
    set("set NONE 1", WHO_PROCESS, 0, VALUE(0, 1));
    set("set class 4", WHO_PROCESS, 0, VALUE(4, 0));
    set("set which 0", 0, 0, VALUE(2, 1));
    set("set which 4", 4, 0, VALUE(2, 1));
    get("get which 4", 4, 0);
    set("set no such pid", WHO_PROCESS, 999999, VALUE(2, 1));
    get("get no such pid", WHO_PROCESS, 999999);
    set("set NONE 0", WHO_PROCESS, 0, VALUE(0, 0));
    get("after NONE 0", WHO_PROCESS, 0);
    set("set IDLE 5", WHO_PROCESS, 0, VALUE(3, 5));
    get("after IDLE 5", WHO_PROCESS, 0);
    set("set BE 7", WHO_PROCESS, 0, VALUE(2, 7));
    get("after BE 7", WHO_PROCESS, 0);
    child_get("a child's now");
    set("set RT 2", WHO_PROCESS, 0, VALUE(1, 2));
    get("after RT 2", WHO_PROCESS, 0);
    /* A process group of two with different priorities. */
    int go[2], ready[2];
    pipe(go);
    pipe(ready);
    pid_t a = fork();
    if (a == 0) {
        close(go[1]);
        setpgid(0, 0);
        rawsys(SYS_ioprio_set, WHO_PROCESS, 0, VALUE(2, 6), 0, 0, 0);
        write(ready[1], "a", 1);
        char c;
        read(go[0], &c, 1);
        _exit(0);
    }
    setpgid(a, a);
    pid_t b = fork();
    if (b == 0) {
        close(go[1]);
        setpgid(0, a);
        rawsys(SYS_ioprio_set, WHO_PROCESS, 0, VALUE(2, 3), 0, 0, 0);
        write(ready[1], "b", 1);
        char c;
        read(go[0], &c, 1);
        _exit(0);
    }
    setpgid(b, a);
    char r2[2];
    read_full(ready[0], r2, 2);
    get("group best", WHO_PGRP, a);
    set("set the group IDLE 0", WHO_PGRP, a, VALUE(3, 0));
    get("group after", WHO_PGRP, a);
    close(go[1]);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);
    pid_t root = sleeper(0);
    out("uid 1000");
    as_user(NO_CAP, as_unprivileged, root);
    out("uid 1000 with CAP_SYS_NICE");
    as_user(CAP_SYS_NICE_, as_unprivileged, root);
    end_sleeper(root);
    return 0;
}
