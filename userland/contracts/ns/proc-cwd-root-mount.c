/* A walk through /proc/PID/cwd or /proc/PID/root goes on in the mount the
 * process holds that directory in, as one through /proc/PID/fd/N does in
 * the mount the file was opened through: a read-only bind of the same
 * tmpfs made elsewhere afterwards lends its flag only to the processes
 * whose working directory or root is in the bind. (systemd changes files
 * by /proc/self/... paths inside service namespaces full of such binds.) */
#include "../common.h"
#include <sys/mount.h>

#define RW "/cwdmnt"
#define RO "/cwdmnt-ro"

static void changes(const char *via, int dirfd, const char *dir)
{
    char path[128], label[160];
    snprintf(path, sizeof path, "%s/file", dir);
    snprintf(label, sizeof label, "  %s: utimensat", via);
    check(label, utimensat(dirfd, path, NULL, 0));
    snprintf(label, sizeof label, "  %s: chmod", via);
    check(label, fchmodat(dirfd, path, 0600, 0));
    int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
    out("  %s: open for writing: %s", via, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    snprintf(path, sizeof path, "%s/new", dir);
    snprintf(label, sizeof label, "  %s: mkdir", via);
    if (check(label, mkdirat(dirfd, path, 0755)) == 0)
        unlinkat(dirfd, path, AT_REMOVEDIR);
}

int main(void)
{
    mkdir(RW, 0755);
    mkdir(RO, 0755);
    check("mount tmpfs on " RW, mount("tmpfs", RW, "tmpfs", 0, "mode=755"));
    int fd = open(RW "/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    check("bind " RW " on " RO, mount(RW, RO, NULL, MS_BIND, NULL));
    check("remount " RO " read-only", mount(NULL, RO, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL));
    check("utimensat " RO "/file", utimensat(AT_FDCWD, RO "/file", NULL, 0));

    out("working directory " RW ":");
    check("  chdir", chdir(RW));
    changes("/proc/self/cwd", AT_FDCWD, "/proc/self/cwd");
    out("working directory " RO ":");
    check("  chdir", chdir(RO));
    changes("/proc/self/cwd", AT_FDCWD, "/proc/self/cwd");
    check("chdir /", chdir("/"));

    /* The root: a chrooted child reaches /proc by a descriptor opened
     * before, and names its own root through it. */
    int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *roots[] = {RW, RO};
    for (int i = 0; i < 2; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            out("root %s:", roots[i]);
            check("  chroot", chroot(roots[i]));
            check("  chdir /", chdir("/"));
            changes("/proc/self/root", proc, "self/root");
            /* Its cwd is its root, through the same mount. */
            changes("/proc/self/cwd", proc, "self/cwd");
            _exit(0);
        }
        reap("child", pid);
    }
    close(proc);

    unlink(RW "/file");
    check("umount " RO, umount2(RO, 0));
    check("umount " RW, umount2(RW, 0));
    check("rmdir " RO, rmdir(RO));
    check("rmdir " RW, rmdir(RW));
    return 0;
}
