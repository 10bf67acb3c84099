/* The mount namespace systemd builds for a service with PrivateMounts= and
 * ProtectHostname= (systemd-udevd.service), step by step: / made a slave,
 * / bound recursively on a unit-root directory through an O_PATH
 * descriptor, read-only binds of a socket file over itself (the notify
 * socket), of a procfs file over itself (/proc/sys/kernel/hostname) and of
 * a propagation directory on an "incoming" directory, each made read-only
 * by mount_setattr(AT_SYMLINK_NOFOLLOW) or by MS_REMOUNT|MS_BIND|MS_RDONLY
 * through /proc/self/fd/N, then the unit root moved onto / and chrooted
 * into. Only those binds become read-only: the tmpfs around them (the
 * service's /run) stays writable (creating, touching and chmod-ing a file
 * through its descriptor), and the parent's view is untouched.
 * udevd failed "Failed to touch /run/udev/queue: Read-only file system"
 * when the wrong mount took the flag. */
#include "../common.h"
#include "newmount.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>

#define RUN "/svcns"

/* Creates `path`, then touches it as udevd does (futimens on the
 * descriptor) and changes its mode through the descriptor. */
static void try_create(const char *label, const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    int touched = futimens(fd, NULL);
    const char *touch = touched ? errname(errno) : "ok";
    int chmodded = fchmod(fd, 0600);
    out("%s: ok, futimens %s, fchmod %s", label, touch, chmodded ? errname(errno) : "ok");
    close(fd);
    unlink(path);
}

/* A bind of `path` over itself, named by an O_PATH descriptor as
 * systemd's mount_nofollow does. */
static void bind_self(const char *label, const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    char target[64];
    snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
    check(label, mount(path, target, NULL, MS_BIND, NULL));
    close(fd);
}

static void setattr_ro(const char *label, const char *path)
{
    struct mount_attr_v0 attr = {.attr_set = MOUNT_ATTR_RDONLY};
    check(label, syscall(NR_mount_setattr, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &attr, sizeof attr));
}

static void remount_ro(const char *label, const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    char target[64];
    snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
    check(label, mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL));
    close(fd);
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

static void show_state(void)
{
    options_of(RUN);
    options_of(RUN "/systemd/notify");
    options_of(RUN "/systemd/incoming");
    options_of("/proc/sys/kernel/hostname");
    try_create("  create in " RUN "/udev", RUN "/udev/queue");
    try_create("  create in " RUN "/systemd", RUN "/systemd/other");
    try_create("  create in " RUN "/systemd/incoming", RUN "/systemd/incoming/x");
    int fd = open("/proc/sys/kernel/hostname", O_WRONLY | O_CLOEXEC);
    out("  open hostname for writing: %s", fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
}

int main(void)
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

    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        mkdir(RUN "/systemd/propagate/unit", 0600);
        check("make / slave recursively", mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL));
        mkdir(RUN "/systemd/unit-root", 0700);
        int fd = open(RUN "/systemd/unit-root", O_PATH | O_CLOEXEC | O_NOFOLLOW);
        char target[64];
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
        check("bind / on unit-root recursively", mount("/", target, NULL, MS_BIND | MS_REC, NULL));
        close(fd);
        const char *root = RUN "/systemd/unit-root";
        char hostname[256], notify_path[256], incoming[256], propagate[256];
        snprintf(hostname, sizeof hostname, "%s/proc/sys/kernel/hostname", root);
        snprintf(notify_path, sizeof notify_path, "%s" RUN "/systemd/notify", root);
        snprintf(incoming, sizeof incoming, "%s" RUN "/systemd/incoming", root);
        snprintf(propagate, sizeof propagate, "%s" RUN "/systemd/propagate/unit", root);
        bind_self("bind hostname over itself", hostname);
        setattr_ro("mount_setattr hostname read-only", hostname);
        check("mkdir incoming", mkdir(incoming, 0755));
        int pfd = open(incoming, O_PATH | O_CLOEXEC | O_NOFOLLOW);
        snprintf(target, sizeof target, "/proc/self/fd/%d", pfd);
        check("bind propagate dir on incoming", mount(propagate, target, NULL, MS_BIND, NULL));
        close(pfd);
        setattr_ro("mount_setattr incoming read-only", incoming);
        bind_self("bind notify socket over itself", notify_path);
        remount_ro("remount notify socket read-only", notify_path);
        check("chdir unit-root", chdir(root));
        check("move unit-root onto /", mount(root, "/", NULL, MS_MOVE, NULL));
        check("chroot .", chroot("."));
        check("chdir /", chdir("/"));
        check("make / shared recursively", mount(NULL, "/", NULL, MS_SHARED | MS_REC, NULL));
        check("make incoming a slave", mount(NULL, RUN "/systemd/incoming", NULL, MS_SLAVE, NULL));
        out("in the service's namespace:");
        show_state();
        _exit(0);
    }
    reap("child", pid);
    out("in the parent's namespace:");
    show_state();
    close(notify);
    unlink(RUN "/systemd/notify");
    check("umount " RUN, umount2(RUN, MNT_DETACH));
    check("rmdir " RUN, rmdir(RUN));
    return 0;
}
