/* Per-mount flags follow the mount a path goes through, as Linux's
 * (vfsmount, dentry) pairs: a directory bound a second time elsewhere and
 * remounted read-only (MS_REMOUNT|MS_BIND|MS_RDONLY) refuses every change
 * made through it with EROFS (open for writing, O_CREAT, O_TRUNC,
 * truncate, chmod, chown, utimensat, mkdir, mknod, unlink, symlink,
 * fchmod and fsetxattr on a descriptor opened through it) while the same
 * files through the first place stay writable; statfs shows each mount's
 * flags; link and rename between two mounts of one file system fail with
 * EXDEV. */
#include "../common.h"
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>

static void try_open(const char *label, const char *path, int flags)
{
    int fd = open(path, flags, 0644);
    out("%s: %s", label, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
}

static void changes(const char *dir)
{
    char p[64], label[128];
#define L(what) (snprintf(label, sizeof label, "%s: %s", dir, what), label)
#define P(name) (snprintf(p, sizeof p, "%s/%s", dir, name), p)
    try_open(L("open f O_WRONLY"), P("f"), O_WRONLY);
    try_open(L("open f O_RDONLY|O_TRUNC"), P("f"), O_RDONLY | O_TRUNC);
    try_open(L("open new O_CREAT"), P("new"), O_CREAT | O_WRONLY);
    try_open(L("open f O_RDONLY"), P("f"), O_RDONLY);
    check(L("truncate f"), truncate(P("f"), 1));
    check(L("chmod f"), chmod(P("f"), 0600));
    check(L("chown f"), chown(P("f"), 0, 0));
    check(L("utimensat f"), utimensat(AT_FDCWD, P("f"), NULL, 0));
    check(L("mkdir d"), mkdir(P("d"), 0755));
    check(L("mknod fifo"), mknod(P("fifo"), S_IFIFO | 0644, 0));
    check(L("symlink s"), symlink("f", P("s")));
    check(L("unlink victim"), unlink(P("victim")));
    int fd = open(P("f"), O_RDONLY);
    check(L("fchmod fd"), fchmod(fd, 0644));
    check(L("fsetxattr fd"), fsetxattr(fd, "user.x", "1", 1, 0));
    close(fd);
    struct statfs st;
    check(L("statfs"), statfs(dir, &st));
    out("%s: statfs read-only: %s", dir, yesno(st.f_flags & ST_RDONLY));
    /* Undo what succeeded, so the other place sees the same files. */
    unlink(P("new"));
    rmdir(P("d"));
    unlink(P("fifo"));
    unlink(P("s"));
    put_file("bf/a/victim", "v");
#undef L
#undef P
}

int main(void)
{
    mkdir("bf", 0755);
    check("mount tmpfs on bf", mount("none", "bf", "tmpfs", 0, NULL));
    mkdir("bf/a", 0755);
    mkdir("bf/b", 0755);
    mkdir("bf/c", 0755);
    put_file("bf/a/f", "data");
    put_file("bf/a/victim", "v");
    check("bind bf/a on bf/b", mount("bf/a", "bf/b", NULL, MS_BIND, NULL));
    check("remount bf/b bind,ro", mount(NULL, "bf/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
    check("bind bf/a on bf/c", mount("bf/a", "bf/c", NULL, MS_BIND, NULL));
    changes("bf/b");
    changes("bf/a");
    changes("bf/c");
    check("link bf/a/f bf/c/g", link("bf/a/f", "bf/c/g"));
    check("link bf/a/f bf/b/g", link("bf/a/f", "bf/b/g"));
    check("link bf/a/f bf/a/g", link("bf/a/f", "bf/a/g"));
    check("rename bf/a/g bf/c/h", rename("bf/a/g", "bf/c/h"));
    check("rename bf/c/g bf/c/h", rename("bf/c/g", "bf/c/h"));
    check("rename bf/a/g bf/a/h", rename("bf/a/g", "bf/a/h"));
    check("remount bf/b bind,rw", mount(NULL, "bf/b", NULL, MS_REMOUNT | MS_BIND, NULL));
    try_open("bf/b rw again: open f O_WRONLY", "bf/b/f", O_WRONLY);
    check("remount bf/a (not a mount) bind,ro", mount(NULL, "bf/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
    check("umount bf/b", umount("bf/b"));
    check("umount bf/c", umount("bf/c"));
    check("umount bf", umount("bf"));
    return 0;
}
