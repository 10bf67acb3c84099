/*
 * Booted as init from a partition (root=/dev/vda1, no initramfs): the
 * root is the ext2 file system on the disk's first partition, mounted
 * read-only as /dev/root, with devtmpfs on /dev. Prints ROOTDEV-CHECK ok,
 * or FAILED and why, then powers off.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int failed;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("ROOTDEV-CHECK FAILED: %s (errno %s)\n", what, strerror(errno));
        failed = 1;
    }
}

int main(void)
{
    struct stat st;
    char buf[256];
    check(getpid() == 1, "not pid 1");
    check(mount("proc", "/proc", "proc", 0, NULL) == 0, "mount /proc");
    check(stat("/", &st) == 0 && major(st.st_dev) == 254 && minor(st.st_dev) == 1, "/ is not on 254:1");
    FILE *f = fopen("/proc/mounts", "r");
    int root_line = 0;
    while (f && fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "/dev/root / ext2 ro", 19) == 0)
            root_line = 1;
    }
    check(root_line, "no `/dev/root / ext2 ro` in /proc/mounts");
    int fd = open("/etc/hello", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    check(n == 16 && memcmp(buf, "hello from vda1\n", 16) == 0, "read /etc/hello");
    check(stat("/dev/vda1", &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == makedev(254, 1), "devtmpfs /dev/vda1");
    check(stat("/dev/vda2", &st) == 0 && st.st_rdev == makedev(254, 2), "devtmpfs /dev/vda2");
    check(open("/etc/new", O_WRONLY | O_CREAT, 0644) < 0 && errno == EROFS, "a read-only root refuses writes (EROFS)");
    if (!failed)
        printf("ROOTDEV-CHECK ok\n");
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
