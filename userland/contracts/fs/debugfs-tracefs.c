/* debugfs and tracefs as Linux 6.1 mounts them (fs/debugfs/inode.c,
 * fs/tracefs/inode.c): each a single superblock that every mount shows;
 * statfs is simple_statfs's (DEBUGFS_MAGIC, TRACEFS_MAGIC, a page as
 * block size, no counts, f_fsid zero); the root is 0700 and root's
 * unless uid=, gid=, mode= say otherwise, and a later mount's options
 * apply to the one superblock (every mount shows them); /proc/mounts
 * shows each only when not the default; unknown options are ignored.
 * systemd mounts them on /sys/kernel/debug and /sys/kernel/tracing, which
 * sysfs provides as empty directories. Only what does not depend on the
 * kernel's configuration (what tracing it has) is printed. */
#include <sys/mount.h>
#include <sys/vfs.h>
#include "common.h"
#include "show-mounts.h"

#define DEBUGFS_MAGIC 0x64626720
#define TRACEFS_MAGIC 0x74726163

static void show_statfs(const char *label, const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf) < 0) {
        out("%s: statfs %s", label, errname(errno));
        return;
    }
    const char *type = sf.f_type == DEBUGFS_MAGIC ? "DEBUGFS_MAGIC" : sf.f_type == TRACEFS_MAGIC ? "TRACEFS_MAGIC" : "other";
    out("%s: f_type %s bsize %ld blocks %llu bfree %llu bavail %llu files %llu ffree %llu namelen %ld fsid %s",
        label, type, (long)sf.f_bsize, (unsigned long long)sf.f_blocks, (unsigned long long)sf.f_bfree,
        (unsigned long long)sf.f_bavail, (unsigned long long)sf.f_files, (unsigned long long)sf.f_ffree,
        (long)sf.f_namelen, sf.f_fsid.__val[0] || sf.f_fsid.__val[1] ? "non-zero" : "zero");
}

static void show_root(const char *label, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        out("%s: stat %s", label, errname(errno));
        return;
    }
    out("%s: root mode %o uid %u gid %u", label, st.st_mode, st.st_uid, st.st_gid);
}

static void one(const char *type)
{
    char a[32], b[32], label[64];
    snprintf(a, sizeof a, "%s-a", type);
    snprintf(b, sizeof b, "%s-b", type);
    mkdir(a, 0755);
    mkdir(b, 0755);
    snprintf(label, sizeof label, "mount %s", type);
    check(label, mount(type, a, type, MS_NOSUID | MS_NODEV | MS_NOEXEC, ""));
    show_mounts(type, a);
    show_statfs(type, a);
    show_root(type, a);
    struct stat sa, sb;
    check("mount a second time with options", mount(type, b, type, 0, "mode=755,uid=5,gid=6,bogus"));
    show_mounts("second", b);
    show_mounts("first after the second", a);
    show_root("first after the second", a);
    stat(a, &sa);
    stat(b, &sb);
    out("same root: %s", yesno(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino));
    check("umount second", umount(b));
    check("mount again with no options", mount(type, b, type, 0, ""));
    show_root("no options", a);
    show_mounts("no options", a);
    show("mount again on the same point", mount(type, b, type, 0, "uid=7"));
    show_root("after the refused mount", a);
    check("umount", umount(b));
    check("mount uid=0,gid=0", mount(type, b, type, 0, "uid=0,gid=0"));
    show_root("root's again", a);
    show_mounts("root's again", a);
    check("umount", umount(b));
    check("mount uid=abc,mode=9", mount(type, b, type, 0, "uid=abc,mode=9"));
    show_root("bad values", a);
    show_mounts("bad values", a);
    check("umount", umount(b));
    check("mount mode=700", mount(type, b, type, 0, "mode=700"));
    show_root("mode=700", a);
    check("umount", umount(b));
    check("umount first", umount(a));
    out("after umount: a mounted %s", umount(a) == 0 ? "yes" : errname(errno));
    show("unprivileged child mounts", 0);
    pid_t pid = fork();
    if (pid == 0) {
        setuid(65534);
        show(label, mount(type, a, type, 0, ""));
        _exit(0);
    }
    reap("child", pid);
}

int main(void)
{
    one("debugfs");
    one("tracefs");
    struct stat st;
    mkdir("sys", 0755);
    check("mount sysfs", mount("sysfs", "sys", "sysfs", 0, ""));
    out("sysfs kernel/debug is a directory: %s", yesno(stat("sys/kernel/debug", &st) == 0 && S_ISDIR(st.st_mode)));
    out("sysfs kernel/tracing is a directory: %s", yesno(stat("sys/kernel/tracing", &st) == 0 && S_ISDIR(st.st_mode)));
    umount("sys");
    return 0;
}
