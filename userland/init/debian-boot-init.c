/* The initramfs init that boots Debian's Linux 6.1 into the bootable
 * Debian image (tools/debian-boot.py, docs/debian-boot.md): Debian's kernel
 * has virtio-blk, ext4 and virtio-net as modules, so something must load
 * them before the root can be mounted (Debian does it with an initramfs-tools
 * image; this is the smallest equivalent). It loads the modules named in
 * /modules.list, waits for /dev/vda, mounts it read-only on /root (as
 * Linux's own root= does; systemd-remount-fs makes it writable from fstab),
 * moves it over / and executes the image's /sbin/init (systemd) with this
 * process's arguments. Kevlar does not use it: its drivers are built in and
 * it mounts root= itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "modules.h"

#define MODULE_LIST "/modules.list"
#define DISK "/dev/vda"
#define NEWROOT "/root"
#define DISK_WAIT_MS 20000

static void fail(const char *what)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "debian-boot-init: %s: %s\n", what, strerror(errno));
    if (write(2, buf, n) < 0) {
        /* nowhere else to say it */
    }
    /* PID 1 exiting panics Linux, which (panic=-1) ends the VM. */
    _exit(1);
}


int main(int argc, char **argv)
{
    (void)argc;
    mkdir("/dev", 0755);
    if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0 && errno != EBUSY)
        fail("mount devtmpfs on /dev");
    load_modules(MODULE_LIST);
    struct stat st;
    struct timespec tick = {0, 20 * 1000 * 1000};
    int waited = 0;
    while (stat(DISK, &st) != 0 || !S_ISBLK(st.st_mode)) {
        if (waited >= DISK_WAIT_MS) {
            errno = ENODEV;
            fail("no " DISK);
        }
        nanosleep(&tick, NULL);
        waited += 20;
    }
    mkdir(NEWROOT, 0700);
    if (mount(DISK, NEWROOT, "ext4", MS_RDONLY, NULL) != 0)
        fail("mount " DISK " on " NEWROOT);
    if (umount2("/dev", MNT_DETACH) != 0)
        fail("umount /dev");
    if (chdir(NEWROOT) != 0)
        fail("chdir " NEWROOT);
    if (mount(".", "/", NULL, MS_MOVE, NULL) != 0)
        fail("move the root");
    if (chroot(".") != 0 || chdir("/") != 0)
        fail("chroot");
    argv[0] = "/sbin/init";
    execv("/sbin/init", argv);
    fail("exec /sbin/init");
    return 1;
}
