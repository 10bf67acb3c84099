/* Cgroup namespaces: a process in cgroup /t-ns/a that unshares
 * CLONE_NEWCGROUP sees its own cgroup as "/" in /proc/self/cgroup and
 * others relative to it (its parent at the root as "/../..", a child
 * moved to a sibling as "/../b"); the parent still sees the full paths;
 * the /proc/self/ns/cgroup link changes; uid 1000 gets EPERM. */
#include "../cgroup/cg.h"
#include <sched.h>

#define T CG "/t-ns"

static void link_of(const char *path, char *buf, size_t n)
{
    ssize_t r = readlink(path, buf, n - 1);
    buf[r > 0 ? r : 0] = 0;
}

int main(void)
{
    cg_mount();
    mkdir(T, 0755);
    mkdir(T "/a", 0755);
    mkdir(T "/b", 0755);
    char before[64];
    link_of("/proc/self/ns/cgroup", before, sizeof before);
    int up[2], down[2];
    pipe(up);
    pipe(down);
    pid_t pid = fork();
    char c;
    if (pid == 0) {
        if (cg_move(T "/a", 0) < 0)
            out("move to a: %s", errname(errno));
        check("unshare(CLONE_NEWCGROUP)", unshare(CLONE_NEWCGROUP));
        char after[64];
        link_of("/proc/self/ns/cgroup", after, sizeof after);
        out("cgroup link changed: %s", yesno(strcmp(before, after) != 0));
        cg_show("self", "/proc/self/cgroup");
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/cgroup", getppid());
        cg_show("parent", path);
        int gup[2], gdown[2];
        pipe(gup);
        pipe(gdown);
        pid_t g = fork();
        if (g == 0) {
            cg_move(T "/b", 0);
            write(gup[1], "g", 1);
            read(gdown[0], &c, 1);
            _exit(0);
        }
        read(gup[0], &c, 1);
        snprintf(path, sizeof path, "/proc/%d/cgroup", g);
        cg_show("child in b", path);
        pid_t n = fork();
        if (n == 0) {
            cg_show("new child", "/proc/self/cgroup");
            _exit(0);
        }
        waitpid(n, NULL, 0);
        write(gdown[1], "x", 1);
        waitpid(g, NULL, 0);
        write(up[1], "x", 1);
        read(down[0], &c, 1);
        cg_move(CG, 0);
        _exit(0);
    }
    read(up[0], &c, 1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cgroup", pid);
    cg_show("parent's view of the child", path);
    write(down[1], "x", 1);
    reap("child", pid);
    pid = fork();
    if (pid == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        check("uid 1000 unshare(CLONE_NEWCGROUP)", unshare(CLONE_NEWCGROUP));
        _exit(0);
    }
    reap("uid 1000 child", pid);
    check("rmdir a", rmdir(T "/a"));
    check("rmdir b", rmdir(T "/b"));
    check("rmdir t-ns", rmdir(T));
    cg_umount();
    return 0;
}
