/* The pids controller: pids.current counts the tasks of the subtree,
 * pids.max refuses fork with EAGAIN and counts it in pids.events (also
 * a limit set on an ancestor); the values pids.max takes. */
#include "cg.h"

#define A CG "/t-pids"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    cg_try("root +pids", CG "/cgroup.subtree_control", "+pids");
    cg_show("pids.max", A "/pids.max");
    cg_show("pids.current empty", A "/pids.current");
    cg_try("pids.max 2", A "/pids.max", "2");
    cg_show("pids.max", A "/pids.max");
    pid_t parent = fork();
    if (parent == 0) {
        cg_move(A, 0);
        out("pids.current with one process: %lld", cg_num(A "/pids.current"));
        pid_t c1 = cg_sleeper();
        out("fork 1: %s", c1 > 0 ? "ok" : errname(errno));
        out("pids.current: %lld", cg_num(A "/pids.current"));
        pid_t c2 = fork();
        if (c2 == 0)
            _exit(0);
        out("fork 2: %s", c2 > 0 ? "ok" : errname(errno));
        cg_show("pids.events", A "/pids.events");
        cg_end(c1);
        out("pids.current after an exit: %lld", cg_num(A "/pids.current"));
        pid_t c3 = fork();
        if (c3 == 0)
            _exit(0);
        out("fork 3: %s", c3 > 0 ? "ok" : errname(errno));
        if (c3 > 0)
            reap("child 3", c3);
        _exit(0);
    }
    reap("parent", parent);
    cg_try("pids.max max", A "/pids.max", "max");
    cg_try("pids.max -1", A "/pids.max", "-1");
    cg_try("pids.max abc", A "/pids.max", "abc");
    cg_try("pids.max 4194305", A "/pids.max", "4194305");
    cg_try("pids.max 4194304", A "/pids.max", "4194304");
    cg_show("pids.max", A "/pids.max");
    rmdir(A);
    cg_try("root -pids", CG "/cgroup.subtree_control", "-pids");
    cg_umount();
    return 0;
}
