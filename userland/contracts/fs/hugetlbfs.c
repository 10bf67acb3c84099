/* hugetlbfs as Linux 6.1 mounts it with no huge pages reserved
 * (sysfs's hugepages-2048kB/nr_hugepages 0, fs/hugetlbfs/inode.c): statfs gives
 * HUGETLBFS_MAGIC and the huge page size (2 MiB) as block size; the root
 * is 0755 and the mounter's; /proc/mounts shows pagesize=2M always and
 * mode=, nr_inodes=, size= when given; pagesize= must be a supported huge
 * page size, unknown options are EINVAL; a min_size= reservation fails
 * without reserved pages. systemd mounts it on /dev/hugepages when
 * /sys/kernel/mm/hugepages exists. */
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include "common.h"
#include "show-mounts.h"

#define HUGETLBFS_MAGIC 0x958458f6

static void show_statfs(const char *label, const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf) < 0) {
        out("%s: statfs %s", label, errname(errno));
        return;
    }
    out("%s: f_type %s bsize %ld blocks %lld bfree %lld bavail %lld files %lld ffree %lld namelen %ld fsid %s",
        label, sf.f_type == HUGETLBFS_MAGIC ? "HUGETLBFS_MAGIC" : "other", (long)sf.f_bsize,
        (long long)sf.f_blocks, (long long)sf.f_bfree, (long long)sf.f_bavail,
        (long long)sf.f_files, (long long)sf.f_ffree, (long)sf.f_namelen,
        sf.f_fsid.__val[0] || sf.f_fsid.__val[1] ? "non-zero" : "zero");
}

static void show_file(const char *label, const char *path)
{
    char buf[64] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    out("%s: %s", label, buf);
}

int main(void)
{
    mkdir("sys", 0755);
    check("mount sysfs", mount("sysfs", "sys", "sysfs", 0, ""));
    struct stat sd;
    out("sysfs kernel/mm/hugepages is a directory: %s", yesno(stat("sys/kernel/mm/hugepages", &sd) == 0 && S_ISDIR(sd.st_mode)));
    const char *files[] = {"nr_hugepages", "free_hugepages", "resv_hugepages", "surplus_hugepages", "nr_overcommit_hugepages"};
    for (unsigned i = 0; i < sizeof files / sizeof *files; i++) {
        char path[128];
        snprintf(path, sizeof path, "sys/kernel/mm/hugepages/hugepages-2048kB/%s", files[i]);
        show_file(files[i], path);
    }
    umount("sys");
    mkdir("h", 0755);
    check("mount hugetlbfs", mount("hugetlbfs", "h", "hugetlbfs", MS_NOSUID | MS_NODEV, ""));
    show_mounts("plain", "h");
    show_statfs("plain", "h");
    struct stat st;
    stat("h", &st);
    out("root mode %o uid %u gid %u", st.st_mode, st.st_uid, st.st_gid);
    int fd = open("h/f", O_CREAT | O_RDWR, 0600);
    check("create h/f", fd);
    if (fd >= 0) {
        fstat(fd, &st);
        out("h/f size %lld", (long long)st.st_size);
        close(fd);
    }
    check("unlink h/f", unlink("h/f"));
    check("mkdir h/d", mkdir("h/d", 0700));
    check("rmdir h/d", rmdir("h/d"));
    check("umount", umount("h"));

    check("mount mode=1770,nr_inodes=10,size=4M", mount("none", "h", "hugetlbfs", 0, "mode=1770,nr_inodes=10,size=4M"));
    show_mounts("options", "h");
    show_statfs("options", "h");
    stat("h", &st);
    out("root mode %o", st.st_mode);
    check("umount", umount("h"));
    check("mount pagesize=2M", mount("none", "h", "hugetlbfs", 0, "pagesize=2M"));
    show_mounts("pagesize=2M", "h");
    check("umount", umount("h"));
    show("mount pagesize=4k", mount("none", "h", "hugetlbfs", 0, "pagesize=4k"));
    show("mount bogus", mount("none", "h", "hugetlbfs", 0, "bogus"));
    show("mount min_size=2M", mount("none", "h", "hugetlbfs", 0, "min_size=2M"));
    out("h mounted after the failures: %s", umount("h") == 0 ? "yes" : errname(errno));
    return 0;
}
