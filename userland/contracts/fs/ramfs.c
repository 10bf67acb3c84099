/* ramfs as Linux 6.1 defines it (Documentation/filesystems/ramfs-rootfs-
 * initramfs.rst, fs/ramfs/inode.c): a mountable type with no size limit;
 * statfs is simple_statfs's (RAMFS_MAGIC, a page as block size, no block
 * or node counts, f_fsid zero); the root is 0755 and the mounter's unless
 * mode= says otherwise (/proc/mounts shows mode= only then); other
 * options are ignored, a bad mode= is EINVAL; files and directories work
 * as in tmpfs; umount ends it. systemd mounts one per unit on
 * /run/credentials/<unit> with mode=0700 and remounts it read-only. */
#include <sys/mount.h>
#include <sys/vfs.h>
#include "common.h"
#include "show-mounts.h"

#define RAMFS_MAGIC 0x858458f6

static void show_statfs(const char *label, const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf) < 0) {
        out("%s: statfs %s", label, errname(errno));
        return;
    }
    out("%s: f_type %s bsize %ld blocks %llu bfree %llu bavail %llu files %llu ffree %llu namelen %ld frsize %ld fsid %s",
        label, sf.f_type == RAMFS_MAGIC ? "RAMFS_MAGIC" : "other", (long)sf.f_bsize,
        (unsigned long long)sf.f_blocks, (unsigned long long)sf.f_bfree, (unsigned long long)sf.f_bavail,
        (unsigned long long)sf.f_files, (unsigned long long)sf.f_ffree, (long)sf.f_namelen, (long)sf.f_frsize,
        sf.f_fsid.__val[0] || sf.f_fsid.__val[1] ? "non-zero" : "zero");
}

static void show_root(const char *label, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        out("%s: stat %s", label, errname(errno));
        return;
    }
    out("%s: root mode %o uid %u gid %u nlink %lu", label, st.st_mode, st.st_uid, st.st_gid, (unsigned long)st.st_nlink);
}

int main(void)
{
    mkdir("r", 0755);
    check("mount ramfs", mount("none", "r", "ramfs", 0, ""));
    show_mounts("plain", "r");
    show_statfs("plain", "r");
    show_root("plain", "r");

    /* Files, directories, links, data, sizes past any tmpfs default. */
    int fd = open("r/f", O_CREAT | O_RDWR, 0640);
    check("create r/f", fd);
    check("write", write(fd, "hello", 5));
    check("pwrite at 1 MiB", pwrite(fd, "x", 1, 1 << 20));
    char buf[8] = {0};
    check("pread", pread(fd, buf, 5, 0));
    out("read back %s", buf);
    struct stat st;
    fstat(fd, &st);
    out("size %lld", (long long)st.st_size);
    close(fd);
    check("mkdir r/d", mkdir("r/d", 0700));
    check("link", link("r/f", "r/d/g"));
    check("symlink", symlink("f", "r/s"));
    check("rename", rename("r/d/g", "r/h"));
    show_statfs("with files", "r");
    check("rmdir r/d", rmdir("r/d"));
    check("unlink r/h", unlink("r/h"));
    check("unlink r/f", unlink("r/f"));
    check("unlink r/s", unlink("r/s"));
    check("umount", umount("r"));
    out("after umount: r/d %s", access("r/d", F_OK) == 0 ? "exists" : errname(errno));
    fd = open("r/f", O_CREAT | O_RDWR, 0600);
    check("create on the directory below", fd);
    close(fd);
    unlink("r/f");

    /* mode= as systemd mounts /run/credentials/<unit>; ignored options. */
    check("mount mode=0700", mount("ramfs", "r", "ramfs", MS_NODEV | MS_NOEXEC | MS_NOSUID, "mode=0700"));
    show_mounts("mode=0700", "r");
    show_root("mode=0700", "r");
    check("remount ro (bind)", mount(NULL, "r", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NODEV | MS_NOEXEC | MS_NOSUID, NULL));
    show_mounts("read-only", "r");
    out("create on read-only: %s", open("r/x", O_CREAT | O_WRONLY, 0600) < 0 ? errname(errno) : "ok");
    show_statfs("read-only", "r");
    check("umount", umount("r"));
    check("mount mode=1777,size=1k,bogus", mount("none", "r", "ramfs", 0, "mode=1777,size=1k,bogus,uid=5"));
    show_mounts("ignored options", "r");
    show_root("ignored options", "r");
    check("umount", umount("r"));
    show("mount mode=abc", mount("none", "r", "ramfs", 0, "mode=abc"));
    show("mount mode=99", mount("none", "r", "ramfs", 0, "mode=99"));
    out("r is a mount after bad modes: %s", umount("r") == 0 ? "yes" : errname(errno));

    /* Listed in /proc/filesystems as a nodev type. */
    FILE *f = fopen("/proc/filesystems", "r");
    char line[128];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strcmp(line, "nodev\tramfs\n") == 0)
            found = 1;
    if (f)
        fclose(f);
    out("/proc/filesystems has nodev ramfs: %s", yesno(found));
    return 0;
}
