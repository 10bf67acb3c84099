/* Mount namespaces with private mounts (the default): a child that
 * unshares CLONE_NEWNS gets a copy of the mount table (new mount ids, the
 * same mount points); a tmpfs it mounts is not seen by its parent, one
 * its parent mounts afterwards is not seen by it, and an unmount in one
 * leaves the other's copy; /proc/PID/mounts shows each process's own
 * table; the namespace goes away with its last process. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static char cwd[256];

/* Tells whether /proc/PID/mounts (PID 0: self) has a line for ./dir. */
static const char *listed(int pid, const char *dir)
{
    char path[64], want[512], text[16384];
    if (pid)
        snprintf(path, sizeof path, "/proc/%d/mounts", pid);
    else
        snprintf(path, sizeof path, "/proc/self/mounts");
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    int fd = open(path, O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return strstr(text, want) ? "listed" : "not listed";
}

static int count_lines(const char *path)
{
    char text[16384];
    int fd = open(path, O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    int lines = 0;
    for (ssize_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    return lines;
}

static const char *is_mounted(const char *dir)
{
    struct stat a, b;
    char parent[300];
    snprintf(parent, sizeof parent, "%s/..", dir);
    if (stat(dir, &a) < 0 || stat(parent, &b) < 0)
        return "missing";
    return a.st_dev != b.st_dev ? "mounted" : "plain directory";
}

int main(void)
{
    getcwd(cwd, sizeof cwd);
    mkdir("a", 0755);
    mkdir("b", 0755);
    mkdir("c", 0755);
    check("mount tmpfs on c", mount("none", "c", "tmpfs", 0, NULL));
    int before = count_lines("/proc/self/mountinfo");
    int go[2], back[2];
    pipe(go);
    pipe(back);
    pid_t pid = fork();
    char ch;
    if (pid == 0) {
        check("child unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        out("child mount count equal: %s", yesno(count_lines("/proc/self/mountinfo") == before));
        check("child mount tmpfs on a", mount("none", "a", "tmpfs", 0, NULL));
        out("child a: %s", is_mounted("a"));
        check("child umount c", umount("c"));
        out("child c: %s", is_mounted("c"));
        write(back[1], "x", 1);
        read(go[0], &ch, 1);
        out("child b: %s", is_mounted("b"));
        out("child sees b in mounts: %s", listed(0, "b"));
        _exit(0);
    }
    read(back[0], &ch, 1);
    out("parent a: %s", is_mounted("a"));
    out("parent c: %s", is_mounted("c"));
    out("parent's mounts list a: %s", listed(0, "a"));
    out("child's mounts list a: %s", listed(pid, "a"));
    out("child's mounts list c: %s", listed(pid, "c"));
    check("parent mount tmpfs on b", mount("none", "b", "tmpfs", 0, NULL));
    write(go[1], "x", 1);
    reap("child", pid);
    out("parent b: %s", is_mounted("b"));
    check("umount b", umount("b"));
    check("umount c", umount("c"));
    check("umount a (never mounted here)", umount("a"));
    return 0;
}
