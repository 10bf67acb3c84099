/* cgroup.subtree_control: enabling and disabling controllers for the
 * children, the files that come with them, the errors for unknown
 * names, unavailable controllers, a child still using one, and the
 * "no internal processes" rule both ways. */
#include "cg.h"

#define A CG "/t-subtree"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    mkdir(A "/b", 0755);
    cg_show("a controllers (root enables none)", A "/cgroup.controllers");
    check("a/pids.max without the controller", access(A "/pids.max", F_OK));
    cg_try("root +pids", CG "/cgroup.subtree_control", "+pids");
    cg_show("a controllers", A "/cgroup.controllers");
    check("a/pids.max", access(A "/pids.max", F_OK));
    check("a/pids.current", access(A "/pids.current", F_OK));
    check("a/memory.max", access(A "/memory.max", F_OK));
    cg_try("unknown controller", A "/cgroup.subtree_control", "+bogus");
    cg_try("no sign", A "/cgroup.subtree_control", "pids");
    cg_try("not available here", A "/cgroup.subtree_control", "+memory");
    cg_try("disable one not enabled", A "/cgroup.subtree_control", "-pids");
    cg_try("empty write", A "/cgroup.subtree_control", "");
    cg_try("a +pids", A "/cgroup.subtree_control", "+pids");
    cg_show("a subtree_control", A "/cgroup.subtree_control");
    cg_show("b controllers", A "/b/cgroup.controllers");
    check("b/pids.max", access(A "/b/pids.max", F_OK));
    cg_try("a +pids again", A "/cgroup.subtree_control", "+pids");
    cg_try("root -pids while a uses it", CG "/cgroup.subtree_control", "-pids");
    pid_t child = cg_sleeper();
    check("move a process into a (which has subtree_control)", cg_move(A, child));
    check("move it into b", cg_move(A "/b", child));
    cg_try("a -pids", A "/cgroup.subtree_control", "-pids");
    check("now into a", cg_move(A, child));
    cg_try("a +pids with a process in a", A "/cgroup.subtree_control", "+pids");
    cg_try("the root may have both", CG "/cgroup.subtree_control", "+pids");
    cg_end(child);
    cg_try("a +pids -pids (the last wins)", A "/cgroup.subtree_control", "+pids -pids");
    cg_show("a subtree_control", A "/cgroup.subtree_control");
    rmdir(A "/b");
    rmdir(A);
    cg_try("root -pids", CG "/cgroup.subtree_control", "-pids");
    out("root subtree_control has pids: %s", yesno(cg_has_word(CG "/cgroup.subtree_control", "pids")));
    cg_umount();
    return 0;
}
