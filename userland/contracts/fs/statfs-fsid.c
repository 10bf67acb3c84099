/* statfs(2)'s f_fsid as Linux 6.1 gives it: tmpfs (the initramfs root,
 * devtmpfs, each tmpfs mount) reports a non-zero id made from the random
 * UUID of its superblock, the same through every path and descriptor of
 * one file system and different from another's (a new mount gets a new
 * one); procfs, sysfs, devpts, mqueue, cgroup2, pipes, sockets and
 * anonymous files report zero. The ext2/ext4 side (the UUID folded) is
 * the Debian suite's fanotify-fatrace.sh, with `stat -f`. */
#include "common.h"
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/vfs.h>

static uint64_t fsid_of(struct statfs *sf)
{
    return (uint64_t)(uint32_t)sf->f_fsid.__val[0] | (uint64_t)(uint32_t)sf->f_fsid.__val[1] << 32;
}

/* The fsid of `path` (and prints whether it is zero); 0 on error. */
static uint64_t at(const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf) < 0) {
        out("%s: statfs %s", path, errname(errno));
        return 0;
    }
    uint64_t id = fsid_of(&sf);
    out("%s: fsid %s", path, id ? "non-zero" : "zero");
    return id;
}

static void fd_fsid(const char *label, int fd)
{
    struct statfs sf;
    if (fstatfs(fd, &sf) < 0) {
        out("%s: fstatfs %s", label, errname(errno));
        return;
    }
    out("%s: fsid %s", label, fsid_of(&sf) ? "non-zero" : "zero");
}

static const char *same(uint64_t a, uint64_t b)
{
    return a == b ? "same" : "different";
}

int main(void)
{
    uint64_t dot = at(".");
    uint64_t tmp = at("/tmp");
    uint64_t root = at("/");
    uint64_t dev = at("/dev");
    at("/proc");
    at("/dev/pts");
    out(". and /tmp: %s", same(dot, tmp));
    out("/ and /dev: %s", same(root, dev));
    out(". and .: %s", same(dot, at(".")));

    mkdir("m1", 0755);
    mkdir("m2", 0755);
    mkdir("mq", 0755);
    mkdir("cg", 0755);
    mkdir("sys", 0755);
    check("mount tmpfs m1", mount("none", "m1", "tmpfs", 0, ""));
    check("mount tmpfs m2", mount("none", "m2", "tmpfs", 0, ""));
    uint64_t m1 = at("m1"), m2 = at("m2");
    out("m1 and m2: %s", same(m1, m2));
    out("m1 and .: %s", same(m1, dot));
    mkdir("m1/sub", 0755);
    out("m1/sub and m1: %s", same(at("m1/sub"), m1));
    int fd = open("m1/sub", O_RDONLY | O_DIRECTORY);
    struct statfs sf;
    check("fstatfs m1/sub", fstatfs(fd, &sf));
    out("fstatfs m1/sub and m1: %s", same(fsid_of(&sf), m1));
    close(fd);
    check("remount m1", mount("none", "m1", "tmpfs", MS_REMOUNT, "size=1m"));
    out("m1 after remount: %s", same(at("m1"), m1));
    check("umount m1", umount("m1"));
    check("mount tmpfs m1 again", mount("none", "m1", "tmpfs", 0, ""));
    out("new m1 and old m1: %s", same(at("m1"), m1));
    umount("m1");
    umount("m2");

    check("mount mqueue", mount("none", "mq", "mqueue", 0, ""));
    at("mq");
    umount("mq");
    check("mount cgroup2", mount("none", "cg", "cgroup2", 0, ""));
    at("cg");
    umount("cg");
    check("mount sysfs", mount("none", "sys", "sysfs", 0, ""));
    at("sys");
    umount("sys");

    int p[2];
    check("pipe", pipe(p));
    fd_fsid("pipe", p[0]);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    fd_fsid("socket", s);
    int e = eventfd(0, 0);
    fd_fsid("eventfd", e);
    return 0;
}
