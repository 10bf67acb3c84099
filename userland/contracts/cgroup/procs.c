/* Moving a process by writing its pid to cgroup.procs: membership in
 * cgroup.procs and /proc/PID/cgroup, populated in cgroup.events, rmdir
 * refused while populated, an exit depopulating, bad pids. */
#include "cg.h"

#define A CG "/t-procs"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    pid_t child = cg_sleeper();
    char pid[32], path[64];
    snprintf(pid, sizeof pid, "%d", (int)child);
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)child);
    cg_show("child's cgroup before", path);
    check("move the child", cg_move(A, child));
    cg_show("child's cgroup after", path);
    out("listed in cgroup.procs: %s", yesno(cg_has_word(A "/cgroup.procs", pid)));
    out("listed in the root's: %s", yesno(cg_has_word(CG "/cgroup.procs", pid)));
    out("listed in cgroup.threads: %s", yesno(cg_has_word(A "/cgroup.threads", pid)));
    cg_show("events", A "/cgroup.events");
    check("rmdir while populated", rmdir(A));
    check("move it again (no change)", cg_move(A, child));
    cg_end(child);
    out("depopulated: %s", yesno(cg_wait_key(A "/cgroup.events", "populated", 0)));
    cg_show("procs after the exit", A "/cgroup.procs");
    cg_try("write garbage", A "/cgroup.procs", "abc");
    cg_try("write a negative pid", A "/cgroup.procs", "-5");
    cg_try("write a missing pid", A "/cgroup.procs", "99999999");
    cg_try("write 0 (the writer)", A "/cgroup.procs", "0");
    cg_show("/proc/self/cgroup", "/proc/self/cgroup");
    cg_try("move ourselves back with a newline", CG "/cgroup.procs", "0\n");
    cg_show("/proc/self/cgroup back", "/proc/self/cgroup");
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
