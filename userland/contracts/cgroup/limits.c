/* cgroup.max.depth and cgroup.max.descendants: mkdir past them fails
 * with EAGAIN, limits on ancestors count; the values they take. */
#include "cg.h"

#define A CG "/t-limits"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    cg_try("max.depth 1", A "/cgroup.max.depth", "1");
    check("mkdir depth 1", mkdir(A "/d1", 0755));
    check("mkdir depth 2", mkdir(A "/d1/d2", 0755));
    cg_show("max.depth", A "/cgroup.max.depth");
    cg_try("max.depth max", A "/cgroup.max.depth", "max");
    check("mkdir depth 2 now", mkdir(A "/d1/d2", 0755));
    cg_try("max.descendants 2", A "/cgroup.max.descendants", "2");
    check("mkdir a third", mkdir(A "/other", 0755));
    check("mkdir below the second", mkdir(A "/d1/d2/d3", 0755));
    cg_show("stat", A "/cgroup.stat");
    rmdir(A "/d1/d2");
    check("mkdir after an rmdir", mkdir(A "/other", 0755));
    cg_show("max.descendants", A "/cgroup.max.descendants");
    cg_try("max.descendants -1", A "/cgroup.max.descendants", "-1");
    cg_try("max.descendants abc", A "/cgroup.max.descendants", "abc");
    cg_try("max.descendants 0x10", A "/cgroup.max.descendants", "0x10");
    cg_show("max.descendants", A "/cgroup.max.descendants");
    cg_try("max.depth 3000000000", A "/cgroup.max.depth", "3000000000");
    cg_try("max.descendants max", A "/cgroup.max.descendants", "max");
    rmdir(A "/other");
    rmdir(A "/d1");
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
