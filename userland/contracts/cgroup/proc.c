/* /proc/PID/cgroup follows a process's moves ("0::PATH", " (deleted)"
 * once its cgroup is removed while it is a zombie... or a live member
 * cannot be: rmdir refuses), and /proc/cgroups lists the v2 controllers
 * in hierarchy 0, enabled. */
#include "cg.h"

#define A CG "/t-proc"

int main(void)
{
    char buf[4096];
    if (cg_read("/proc/cgroups", buf, sizeof buf) > 0) {
        out("header: %s", strtok(buf, "\n"));
        for (char *line = strtok(NULL, "\n"); line; line = strtok(NULL, "\n")) {
            char name[32];
            int hier, num, enabled;
            if (sscanf(line, "%31s %d %d %d", name, &hier, &num, &enabled) == 4 && (!strcmp(name, "cpu") || !strcmp(name, "memory") || !strcmp(name, "pids")))
                out("%s: hierarchy %d enabled %d some cgroups: %s", name, hier, enabled, yesno(num >= 1));
        }
    }
    cg_mount();
    mkdir(A, 0755);
    mkdir(A "/deep", 0755);
    mkdir(A "/deep/er", 0755);
    cg_move(A "/deep/er", 0);
    cg_show("self", "/proc/self/cgroup");
    char tid[64];
    snprintf(tid, sizeof tid, "/proc/%d/task/%d/cgroup", getpid(), getpid());
    cg_show("task", tid);
    pid_t child = fork();
    if (child == 0) {
        cg_move(A "/deep", 0);
        _exit(0);
    }
    waitpid(child, NULL, 0);
    cg_move(CG, 0);
    cg_show("self back at the root", "/proc/self/cgroup");
    check("rmdir er", rmdir(A "/deep/er"));
    check("rmdir deep", rmdir(A "/deep"));
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
