/* A hierarchy made by mkdir and taken down by rmdir: a new cgroup's
 * files, names that exist, what cannot be made or removed in cgroupfs,
 * rmdir refused while children exist, and a removed cgroup's open file. */
#include "cg.h"

#define A CG "/t-mkdir"

int main(void)
{
    cg_mount();
    check("mkdir", mkdir(A, 0755));
    check("mkdir again", mkdir(A, 0755));
    check("mkdir over a file name", mkdir(A "/cgroup.procs", 0755));
    struct stat st;
    if (stat(A, &st) == 0)
        out("dir: %s mode %o nlink %ld", ftype(st.st_mode), st.st_mode & 07777, (long)st.st_nlink);
    cg_show("cgroup.type", A "/cgroup.type");
    cg_show("cgroup.events", A "/cgroup.events");
    cg_show("cgroup.freeze", A "/cgroup.freeze");
    cg_show("cgroup.max.depth", A "/cgroup.max.depth");
    cg_show("cgroup.max.descendants", A "/cgroup.max.descendants");
    cg_show("cgroup.procs", A "/cgroup.procs");
    cg_show("cgroup.subtree_control", A "/cgroup.subtree_control");
    if (stat(A "/cgroup.kill", &st) == 0)
        out("cgroup.kill mode %o", st.st_mode & 07777);
    check("open cgroup.kill for reading", open(A "/cgroup.kill", O_RDONLY));
    check("creat in a cgroup", open(A "/newfile", O_WRONLY | O_CREAT, 0644));
    check("mknod a fifo in a cgroup", mknod(A "/fifo", S_IFIFO | 0644, 0));
    check("unlink a cgroup file", unlink(A "/cgroup.procs"));
    check("mkdir child", mkdir(A "/b", 0755));
    if (stat(A, &st) == 0)
        out("dir nlink with a child: %ld", (long)st.st_nlink);
    cg_show("cgroup.stat", A "/cgroup.stat");
    check("rmdir with a child", rmdir(A));
    check("rmdir a file", rmdir(A "/cgroup.procs"));
    check("rmdir missing", rmdir(A "/nothing"));
    int fd = open(A "/b/cgroup.procs", O_RDONLY);
    check("rmdir child", rmdir(A "/b"));
    char buf[64];
    show("read a removed cgroup's file", read(fd, buf, sizeof buf));
    close(fd);
    check("open in the removed cgroup", open(A "/b/cgroup.procs", O_RDONLY));
    /* (A removed cgroup stays "dying" for a while on Linux: only the
     * live count is deterministic.) */
    out("nr_descendants after: %lld", cg_key(A "/cgroup.stat", "nr_descendants"));
    check("rmdir", rmdir(A));
    check("stat after rmdir", stat(A, &st));
    cg_umount();
    return 0;
}
