/* The "no internal processes" rule: a cgroup with processes of its own
 * cannot give the memory controller (a domain controller) to children,
 * nor take processes while it does; with only threaded controllers (cpu,
 * pids) it becomes a thread root ("domain threaded") whose children are
 * "domain invalid". */
#include "cg.h"

#define A CG "/t-internal"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    cg_try("root +memory +pids", CG "/cgroup.subtree_control", "+memory +pids");
    pid_t p = cg_sleeper();
    check("process into a", cg_move(A, p));
    cg_try("a +memory with a process in a", A "/cgroup.subtree_control", "+memory");
    cg_try("a +pids with a process in a", A "/cgroup.subtree_control", "+pids");
    cg_show("a type", A "/cgroup.type");
    check("mkdir b", mkdir(A "/b", 0755));
    cg_show("b type", A "/b/cgroup.type");
    cg_try("a +memory as a thread root", A "/cgroup.subtree_control", "+memory");
    check("process into b", cg_move(A "/b", p));
    cg_try("b +pids", A "/b/cgroup.subtree_control", "+pids");
    cg_try("a -pids", A "/cgroup.subtree_control", "-pids");
    cg_show("a type", A "/cgroup.type");
    cg_show("b type", A "/b/cgroup.type");
    check("process to the root", cg_move(CG, p));
    cg_try("a +memory", A "/cgroup.subtree_control", "+memory");
    check("process into a", cg_move(A, p));
    check("process into b", cg_move(A "/b", p));
    cg_show("a events", A "/cgroup.events");
    cg_try("a -memory with a populated child", A "/cgroup.subtree_control", "-memory");
    cg_try("b type threaded", A "/b/cgroup.type", "domain");
    cg_end(p);
    cg_try("a -memory", A "/cgroup.subtree_control", "-memory");
    rmdir(A "/b");
    check("rmdir", rmdir(A));
    cg_try("root -memory -pids", CG "/cgroup.subtree_control", "-memory -pids");
    cg_umount();
    return 0;
}
