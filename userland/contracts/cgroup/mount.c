/* cgroup2 mounts: the file system type, its magic number, the root's
 * files and controllers, /proc/self/cgroup of a process in the root, and
 * /sys/fs/cgroup as the place sysfs offers for it. */
#include "cg.h"

int main(void)
{
    char buf[4096];
    if (cg_read("/proc/filesystems", buf, sizeof buf) > 0)
        out("/proc/filesystems lists cgroup2: %s", yesno(strstr(buf, "nodev\tcgroup2\n") != NULL));
    show("mount with a bad option", mount("none", "/tmp", "cgroup2", 0, "bogus"));
    cg_mount();
    struct statfs sf;
    if (statfs(CG, &sf) == 0)
        out("f_type is CGROUP2_SUPER_MAGIC: %s", yesno(sf.f_type == 0x63677270));
    struct stat st;
    if (stat(CG, &st) == 0)
        out("root: %s mode %o", ftype(st.st_mode), st.st_mode & 07777);
    const char *files[] = {"cgroup.procs", "cgroup.threads", "cgroup.controllers", "cgroup.subtree_control",
                           "cgroup.max.depth", "cgroup.max.descendants", "cgroup.stat", "cpu.stat",
                           "cgroup.events", "cgroup.type", "cgroup.freeze", "cgroup.kill", "pids.max", "memory.max"};
    for (unsigned i = 0; i < sizeof files / sizeof *files; i++) {
        char path[128];
        snprintf(path, sizeof path, CG "/%s", files[i]);
        if (stat(path, &st) == 0)
            out("root %s: %s mode %o size %lld", files[i], ftype(st.st_mode), st.st_mode & 07777, (long long)st.st_size);
        else
            out("root %s: %s", files[i], errname(errno));
    }
    for (const char *c = "cpu\0memory\0pids\0"; *c; c += strlen(c) + 1)
        out("root controllers has %s: %s", c, yesno(cg_has_word(CG "/cgroup.controllers", c)));
    cg_show("root max.depth", CG "/cgroup.max.depth");
    cg_show("root max.descendants", CG "/cgroup.max.descendants");
    cg_show("/proc/self/cgroup", "/proc/self/cgroup");
    char self[32];
    snprintf(self, sizeof self, "%d", getpid());
    out("root cgroup.procs lists us: %s", yesno(cg_has_word(CG "/cgroup.procs", self)));
    out("root cgroup.threads lists us: %s", yesno(cg_has_word(CG "/cgroup.threads", self)));
    check("open cgroup.controllers for writing", open(CG "/cgroup.controllers", O_WRONLY));
    cg_umount();
    /* The options systemd mounts it with, as /proc/self/mounts shows them
     * (they belong to the one hierarchy: the next mount resets them). */
    mkdir("opts", 0755);
    check("mount with nsdelegate,memory_recursiveprot", mount("cgroup2", "opts", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, "nsdelegate,memory_recursiveprot"));
    if (cg_read("/proc/self/mounts", buf, sizeof buf) > 0) {
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
            if (strstr(line, " cgroup2 "))
                out("mounts: %s", strchr(line, ' ') ? strstr(line, " cgroup2 ") : line);
    }
    umount2("opts", MNT_DETACH);
    /* sysfs has the directory cgroup2 goes on. */
    mkdir("sys", 0755);
    if (mount("sysfs", "sys", "sysfs", 0, NULL) == 0) {
        if (stat("sys/fs/cgroup", &st) == 0)
            out("/sys/fs/cgroup: %s", ftype(st.st_mode));
        else
            out("/sys/fs/cgroup: %s", errname(errno));
        umount2("sys", MNT_DETACH);
    }
    return 0;
}
