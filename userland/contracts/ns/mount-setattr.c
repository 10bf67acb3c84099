/* mount_setattr as Linux 6.1: MOUNT_ATTR_RDONLY/NOSUID/NODEV/NOEXEC set and
 * cleared on one mount or, with AT_RECURSIVE, on the mounts below it too;
 * the atime field replaced only when cleared whole; NOSYMFOLLOW refusing
 * to follow links (ELOOP) but not to read them; propagation; a detached
 * tree's root; and the errors: flags, sizes (E2BIG for a non-zero tail),
 * unknown or high attribute bits, a path that is no mount root, an
 * idmapping without a user namespace to map by, uid 1000. */
#include "../common.h"
#include "newmount.h"
#include <sys/mount.h>
#include <sys/statfs.h>

static long setattr(int dfd, const char *path, unsigned flags, struct mount_attr_v0 *a, size_t size)
{
    return rawsys(NR_mount_setattr, dfd, (long)path, flags, (long)a, size, 0);
}

static void flags(const char *path)
{
    struct statfs st;
    if (statfs(path, &st) != 0) {
        out("%s: statfs %s", path, errname(errno));
        return;
    }
    out("%s:%s%s%s%s%s", path, st.f_flags & ST_RDONLY ? " ro" : " rw", st.f_flags & ST_NOSUID ? " nosuid" : "",
        st.f_flags & ST_NODEV ? " nodev" : "", st.f_flags & ST_NOEXEC ? " noexec" : "",
        st.f_flags & ST_NOATIME ? " noatime" : (st.f_flags & ST_RELATIME ? " relatime" : ""));
}

static void try_create(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    out("create %s: %s", path, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    unlink(path);
}

int main(void)
{
    mkdir("sa", 0755);
    check("mount tmpfs on sa", mount("none", "sa", "tmpfs", 0, NULL));
    check("make sa private", mount(NULL, "sa", NULL, MS_PRIVATE, NULL));
    mkdir("sa/a", 0755);
    mkdir("sa/d", 0755);
    check("mount tmpfs on sa/a", mount("none", "sa/a", "tmpfs", 0, NULL));
    mkdir("sa/a/b", 0755);
    check("mount tmpfs on sa/a/b", mount("none", "sa/a/b", "tmpfs", 0, NULL));
    struct mount_attr_v0 a = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC};
    rcheck("set ro,noexec on sa/a", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    flags("sa/a");
    flags("sa/a/b");
    try_create("sa/a/x");
    try_create("sa/a/b/x");
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR_RDONLY};
    rcheck("clear ro on sa/a recursively", setattr(AT_FDCWD, "sa/a", AT_RECURSIVE, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    rcheck("set nosuid,nodev on sa/a recursively", setattr(AT_FDCWD, "sa/a", AT_RECURSIVE, &a, sizeof a));
    flags("sa/a");
    flags("sa/a/b");
    try_create("sa/a/x");
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR__ATIME, .attr_set = MOUNT_ATTR_NOATIME};
    rcheck("atime: noatime", setattr(AT_FDCWD, "sa/a/b", 0, &a, sizeof a));
    flags("sa/a/b");
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR__ATIME, .attr_set = MOUNT_ATTR_RELATIME};
    rcheck("atime: relatime", setattr(AT_FDCWD, "sa/a/b", 0, &a, sizeof a));
    flags("sa/a/b");
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_NOATIME};
    rcheck("atime set without clearing", setattr(AT_FDCWD, "sa/a/b", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR_NOATIME};
    rcheck("atime cleared in part", setattr(AT_FDCWD, "sa/a/b", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR__ATIME, .attr_set = MOUNT_ATTR_NOATIME | MOUNT_ATTR_STRICTATIME};
    rcheck("atime: two at once", setattr(AT_FDCWD, "sa/a/b", 0, &a, sizeof a));
    symlink("b", "sa/a/l");
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_NOSYMFOLLOW};
    rcheck("set nosymfollow on sa/a", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    struct stat sb;
    out("stat sa/a/l: %s", stat("sa/a/l", &sb) == 0 ? "ok" : errname(errno));
    out("lstat sa/a/l: %s", lstat("sa/a/l", &sb) == 0 ? "ok" : errname(errno));
    char buf[8];
    out("readlink sa/a/l: %ld", (long)readlink("sa/a/l", buf, sizeof buf));
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR_NOSYMFOLLOW};
    rcheck("clear nosymfollow", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    out("stat sa/a/l: %s", stat("sa/a/l", &sb) == 0 ? "ok" : errname(errno));
    a = (struct mount_attr_v0){.propagation = MS_SHARED};
    rcheck("propagation shared", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.propagation = MS_PRIVATE};
    rcheck("propagation private recursively", setattr(AT_FDCWD, "sa/a", AT_RECURSIVE, &a, sizeof a));
    a = (struct mount_attr_v0){.propagation = 12345};
    rcheck("propagation 12345", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.propagation = MS_SHARED | MS_PRIVATE};
    rcheck("propagation shared|private", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){0};
    rcheck("nothing to do, missing path", setattr(AT_FDCWD, "sa/none", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_NODEV};
    rcheck("missing path", setattr(AT_FDCWD, "sa/none", 0, &a, sizeof a));
    rcheck("a directory that is no mount root", setattr(AT_FDCWD, "sa/d", 0, &a, sizeof a));
    rcheck("flags 1", setattr(AT_FDCWD, "sa/a", 1, &a, sizeof a));
    rcheck("size 8", setattr(AT_FDCWD, "sa/a", 0, &a, 8));
    rcheck("size 8192", setattr(AT_FDCWD, "sa/a", 0, &a, 8192));
    rcheck("bad struct pointer", setattr(AT_FDCWD, "sa/a", 0, (void *)8, sizeof a));
    struct {
        struct mount_attr_v0 a;
        uint64_t more;
    } big = {.a = {.attr_set = MOUNT_ATTR_NODEV}, .more = 0};
    rcheck("size 40, zero tail", setattr(AT_FDCWD, "sa/a", 0, &big.a, sizeof big));
    big.more = 1;
    rcheck("size 40, non-zero tail", setattr(AT_FDCWD, "sa/a", 0, &big.a, sizeof big));
    a = (struct mount_attr_v0){.attr_set = 1ULL << 40};
    rcheck("attr_set bit 40", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_set = 0x400};
    rcheck("attr_set 0x400", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_clr = 0x400};
    rcheck("attr_clr 0x400", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_IDMAP, .userns_fd = 900};
    rcheck("idmap with an unused fd", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_IDMAP, .userns_fd = 1ULL << 33};
    rcheck("idmap with fd past INT_MAX", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    int nsfd = open("/proc/self/ns/uts", O_RDONLY);
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_IDMAP, .userns_fd = nsfd};
    rcheck("idmap with a UTS namespace", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    a = (struct mount_attr_v0){.attr_clr = MOUNT_ATTR_IDMAP};
    rcheck("idmap cleared", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
    int pfd = open("sa/a", O_PATH);
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_RDONLY};
    rcheck("AT_EMPTY_PATH on an O_PATH fd", setattr(pfd, "", AT_EMPTY_PATH, &a, sizeof a));
    flags("sa/a");
    rcheck("empty path without AT_EMPTY_PATH", setattr(pfd, "", 0, &a, sizeof a));
    int t = rcheck("open_tree clone of sa/a/b", rawsys(NR_open_tree, AT_FDCWD, (long)"sa/a/b", OPEN_TREE_CLONE, 0, 0, 0));
    a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC};
    rcheck("set ro,noexec on the detached clone", setattr(t, "", AT_EMPTY_PATH, &a, sizeof a));
    rcheck("attach it on sa/d", rawsys(NR_move_mount, t, (long)"", AT_FDCWD, (long)"sa/d", MOVE_MOUNT_F_EMPTY_PATH, 0));
    flags("sa/d");
    flags("sa/a/b");
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        a = (struct mount_attr_v0){.attr_set = MOUNT_ATTR_NODEV};
        rcheck("uid 1000", setattr(AT_FDCWD, "sa/a", 0, &a, sizeof a));
        _exit(0);
    }
    reap("child", pid);
    /* The descriptors hold their mounts busy until closed. */
    check("umount sa/d while its tree's descriptor is open", umount("sa/d"));
    close(t);
    close(pfd);
    close(nsfd);
    check("umount sa/d", umount("sa/d"));
    check("umount sa/a/b", umount("sa/a/b"));
    check("umount sa/a", umount("sa/a"));
    check("umount sa", umount("sa"));
    return 0;
}
