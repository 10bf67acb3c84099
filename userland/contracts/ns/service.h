/* The mount namespace systemd builds for a service with PrivateMounts= and
 * ProtectHostname= (systemd-udevd.service), shared by the tests that look
 * at it: the service's /run as a tmpfs on RUN, then, in a child, / made a
 * slave, / bound recursively on a unit-root directory through an O_PATH
 * descriptor, read-only binds of a procfs file and a socket file over
 * themselves and of a propagation directory on an "incoming" directory,
 * the unit root moved onto / and chrooted into. */
#ifndef SERVICE_H
#define SERVICE_H
#include "../common.h"
#include "newmount.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>

#define RUN "/svcns"

/* mount(source, "/proc/self/fd/N", NULL, flags) with N an O_PATH
 * descriptor of `path`, as systemd's mount_nofollow names its target. */
static void mount_by_fd(const char *label, const char *source, const char *path, unsigned long flags)
{
    int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    char target[64];
    snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
    check(label, mount(source, target, NULL, flags, NULL));
    close(fd);
}

static void setattr_ro(const char *label, const char *path)
{
    struct mount_attr_v0 attr = {.attr_set = MOUNT_ATTR_RDONLY};
    check(label, syscall(NR_mount_setattr, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &attr, sizeof attr));
}

/* The per-mount options (field 6) of the last mountinfo line whose mount
 * point is `where`. */
static void options_of(const char *where)
{
    char text[16384];
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read_full(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        out("mountinfo: %s", errname(errno));
        return;
    }
    text[n] = 0;
    char found[128] = "(not a mount point)";
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[8];
        int k = 0;
        for (char *p = strtok_r(line, " ", &line); p && k < 8; p = strtok_r(NULL, " ", &line))
            f[k++] = p;
        if (k >= 6 && strcmp(f[4], where) == 0) {
            char *comma = strchr(f[5], ',');
            snprintf(found, sizeof found, "%.*s", comma ? (int)(comma - f[5]) : (int)strlen(f[5]), f[5]);
        }
    }
    out("  %s: %s", where, found);
}

/* The service's /run: a tmpfs on RUN with udev/ and systemd/propagate/,
 * and the notify socket bound in it (returned). */
static int service_run_create(void)
{
    mkdir(RUN, 0755);
    check("mount tmpfs on " RUN, mount("tmpfs", RUN, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755"));
    mkdir(RUN "/udev", 0755);
    mkdir(RUN "/systemd", 0755);
    mkdir(RUN "/systemd/propagate", 0755);
    int notify = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, RUN "/systemd/notify");
    check("bind notify socket", bind(notify, (struct sockaddr *)&a, sizeof a));
    return notify;
}

static void service_run_remove(int notify)
{
    close(notify);
    unlink(RUN "/systemd/notify");
    check("umount " RUN, umount2(RUN, MNT_DETACH));
    check("rmdir " RUN, rmdir(RUN));
}

/* In the calling (child) process, the service's namespace built step by
 * step as systemd does, ending chrooted in it with / shared. */
static void service_enter_namespace(void)
{
    check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
    mkdir(RUN "/systemd/propagate/unit", 0600);
    check("make / slave recursively", mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL));
    const char *root = RUN "/systemd/unit-root";
    mkdir(root, 0700);
    mount_by_fd("bind / on unit-root recursively", "/", root, MS_BIND | MS_REC);
    char hostname[256], notify_path[256], incoming[256], propagate[256];
    snprintf(hostname, sizeof hostname, "%s/proc/sys/kernel/hostname", root);
    snprintf(notify_path, sizeof notify_path, "%s" RUN "/systemd/notify", root);
    snprintf(incoming, sizeof incoming, "%s" RUN "/systemd/incoming", root);
    snprintf(propagate, sizeof propagate, "%s" RUN "/systemd/propagate/unit", root);
    mount_by_fd("bind hostname over itself", hostname, hostname, MS_BIND);
    setattr_ro("mount_setattr hostname read-only", hostname);
    check("mkdir incoming", mkdir(incoming, 0755));
    mount_by_fd("bind propagate dir on incoming", propagate, incoming, MS_BIND);
    setattr_ro("mount_setattr incoming read-only", incoming);
    mount_by_fd("bind notify socket over itself", notify_path, notify_path, MS_BIND);
    mount_by_fd("remount notify socket read-only", NULL, notify_path, MS_BIND | MS_REMOUNT | MS_RDONLY);
    check("chdir unit-root", chdir(root));
    check("move unit-root onto /", mount(root, "/", NULL, MS_MOVE, NULL));
    check("chroot .", chroot("."));
    check("chdir /", chdir("/"));
    check("make / shared recursively", mount(NULL, "/", NULL, MS_SHARED | MS_REC, NULL));
    check("make incoming a slave", mount(NULL, RUN "/systemd/incoming", NULL, MS_SLAVE, NULL));
}

/* `show_state` in the service's namespace (a child's), then in the
 * parent's. */
static void service_show_both(void (*show_state)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        service_enter_namespace();
        out("in the service's namespace:");
        show_state();
        _exit(0);
    }
    reap("child", pid);
    out("in the parent's namespace:");
    show_state();
}
#endif
