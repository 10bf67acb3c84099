/* fork inherits the parent's cgroup; a process moved after the fork
 * leaves its child where it was; the exit of the last member
 * depopulates each level up. */
#include "cg.h"

#define A CG "/t-fork"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    mkdir(A "/x", 0755);
    mkdir(A "/y", 0755);
    check("move ourselves to x", cg_move(A "/x", 0));
    pid_t child = cg_sleeper();
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)child);
    cg_show("child", path);
    check("move ourselves to y", cg_move(A "/y", 0));
    cg_show("child after the parent moved", path);
    cg_show("self", "/proc/self/cgroup");
    out("parent level populated: %lld", cg_key(A "/cgroup.events", "populated"));
    check("move ourselves to the root", cg_move(CG, 0));
    out("y populated: %lld", cg_key(A "/y/cgroup.events", "populated"));
    cg_end(child);
    out("x depopulated: %s", yesno(cg_wait_key(A "/x/cgroup.events", "populated", 0)));
    out("parent level depopulated: %s", yesno(cg_wait_key(A "/cgroup.events", "populated", 0)));
    rmdir(A "/x");
    rmdir(A "/y");
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
