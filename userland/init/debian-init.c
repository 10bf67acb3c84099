/* debian-init: PID 1 of the Debian suite's initramfs (docs/contracts.md,
 * "The Debian suite").
 *
 * Loads the kernel modules listed in /modules.list (the Linux oracle needs
 * virtio and ext4 as modules; Kevlar has them built in and has no module
 * loader, so there every load fails and that is ignored), waits for the
 * virtio disk /dev/vda, mounts its ext4 root read-only on /root, mounts
 * sysfs on /root/sys, mounts the second disk /dev/vdb (an empty ext4
 * scratch file system the scripts write to) read-write on /root/mnt,
 * chroots into it and execs /contracts/init there:
 * contract-init, which mounts /dev, /dev/pts, /proc and /tmp itself and
 * runs the suite's scripts with Debian's own bash.
 *
 * Like contract-init it prints nothing on success (only the suite's blocks
 * are compared). When a step fails it prints one `debian-init: ...` line
 * and powers off, so the comparison reports missing blocks with the reason
 * in the log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "modules.h"

#define MODULE_LIST "/modules.list"
#define DISK "/dev/vda"
#define SCRATCH "/dev/vdb"
#define NEWROOT "/root"
#define DISK_WAIT_MS 10000

static void fail(const char *what)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "debian-init: %s: %s\n", what, strerror(errno));
    if (write(1, buf, n) < 0) {
        /* nowhere else to say it */
    }
    sync();
    reboot(RB_POWER_OFF);
    _exit(1);
}


static void wait_for_disk(const char *disk)
{
    struct stat st;
    struct timespec tick = {0, 20 * 1000 * 1000};
    for (int waited = 0; waited < DISK_WAIT_MS; waited += 20) {
        if (stat(disk, &st) == 0 && S_ISBLK(st.st_mode))
            return;
        nanosleep(&tick, NULL);
    }
    errno = ENODEV;
    char what[64];
    snprintf(what, sizeof what, "no %s", disk);
    fail(what);
}

int main(void)
{
    mkdir("/dev", 0755);
    if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0 && errno != EBUSY)
        fail("mount devtmpfs on /dev");
    load_modules(MODULE_LIST);
    wait_for_disk(DISK);
    wait_for_disk(SCRATCH);
    mkdir(NEWROOT, 0755);
    if (mount(DISK, NEWROOT, "ext4", MS_RDONLY, NULL) != 0)
        fail("mount " DISK " (ext4) on " NEWROOT);
    if (mount("sysfs", NEWROOT "/sys", "sysfs", 0, NULL) != 0)
        fail("mount sysfs on " NEWROOT "/sys");
    if (mount(SCRATCH, NEWROOT "/mnt", "ext4", 0, NULL) != 0)
        fail("mount " SCRATCH " (ext4) on " NEWROOT "/mnt");
    if (chdir(NEWROOT) != 0)
        fail("chdir " NEWROOT);
    if (chroot(".") != 0)
        fail("chroot " NEWROOT);
    if (chdir("/") != 0)
        fail("chdir / in the new root");
    char *argv[] = {"/contracts/init", NULL};
    char *envp[] = {NULL};
    execve(argv[0], argv, envp);
    fail("execve /contracts/init");
    return 1;
}
