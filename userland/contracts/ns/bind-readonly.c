/* A read-only bind mount of a directory over itself (what systemd's
 * ProtectSystem= makes of /usr): after MS_REMOUNT|MS_BIND|MS_RDONLY,
 * creating, writing and removing below it fail with EROFS while the rest
 * of the same file system stays writable; in a new mount namespace the
 * same bind leaves the parent's view writable; remounting the bind
 * read-write gives writes back. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static void try_create(const char *label, const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    out("%s: %s", label, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
}

static void try_write(const char *label, const char *path)
{
    int fd = open(path, O_WRONLY);
    out("%s: %s", label, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
}

static void probe(const char *who)
{
    char label[128];
    snprintf(label, sizeof label, "%s: create t/usr/new", who);
    try_create(label, "t/usr/new");
    snprintf(label, sizeof label, "%s: open t/usr/old for writing", who);
    try_write(label, "t/usr/old");
    snprintf(label, sizeof label, "%s: open t/usr/sub/deep for writing", who);
    try_write(label, "t/usr/sub/deep");
    snprintf(label, sizeof label, "%s: mkdir t/usr/dir", who);
    check(label, mkdir("t/usr/dir", 0755));
    snprintf(label, sizeof label, "%s: create t/var/new", who);
    try_create(label, "t/var/new");
    snprintf(label, sizeof label, "%s: open t/var/old for writing", who);
    try_write(label, "t/var/old");
    snprintf(label, sizeof label, "%s: open t/top for writing", who);
    try_write(label, "t/top");
    unlink("t/usr/new");
    rmdir("t/usr/dir");
    unlink("t/var/new");
}

int main(void)
{
    mkdir("t", 0755);
    check("mount tmpfs on t", mount("none", "t", "tmpfs", 0, NULL));
    mkdir("t/usr", 0755);
    mkdir("t/usr/sub", 0755);
    mkdir("t/var", 0755);
    put_file("t/usr/old", "x");
    put_file("t/usr/sub/deep", "x");
    put_file("t/var/old", "x");
    put_file("t/top", "x");
    pid_t pid = fork();
    if (pid == 0) {
        check("child unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("child bind t/usr on itself", mount("t/usr", "t/usr", NULL, MS_BIND, NULL));
        check("child remount t/usr bind,ro", mount(NULL, "t/usr", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
        probe("child");
        _exit(0);
    }
    reap("child", pid);
    probe("parent");
    check("bind t/usr on itself", mount("t/usr", "t/usr", NULL, MS_BIND, NULL));
    check("remount t/usr bind,ro", mount(NULL, "t/usr", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
    probe("ro bind");
    check("unlink t/usr/old", unlink("t/usr/old"));
    check("remount t/usr bind,rw", mount(NULL, "t/usr", NULL, MS_REMOUNT | MS_BIND, NULL));
    probe("rw again");
    check("umount t/usr", umount("t/usr"));
    check("umount t", umount("t"));
    return 0;
}
