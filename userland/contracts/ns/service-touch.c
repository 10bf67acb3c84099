/* In the namespace systemd builds for systemd-udevd.service (as
 * service-namespace builds it: / bound recursively on a unit-root
 * directory, read-only binds of a procfs file, a socket file and a
 * directory of the service's /run tmpfs, the root moved and chrooted
 * into), a file of that tmpfs changed the way systemd's touch_file() and
 * fd_reopen() do: through an O_PATH descriptor named as /proc/self/fd/N
 * (utimensat, chmod, chown, a reopen for writing). The last mount made of
 * the tmpfs is a read-only bind, but the file was not reached through it:
 * every change succeeds, as under Linux. udevd failed "Failed to touch
 * /run/udev/queue: Read-only file system" and its workers "Failed to
 * process device" when the mount of a file reached through /proc/self/fd
 * was guessed from its file system's mounts. */
#include "../common.h"
#include "newmount.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>

#define RUN "/svcns"

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

/* "/proc/self/fd/N" of descriptor `fd`. */
static const char *fd_path(int fd)
{
    static char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return path;
}

/* systemd's touch_file(): an O_PATH descriptor of the file (created with
 * O_EXCL if missing), then its times, mode and owner set by path through
 * /proc/self/fd/N, then a reopen for writing by that path. */
static void touch_opath(const char *label, const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    const char *how = "existing";
    if (fd < 0 && errno == ENOENT) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        how = "created";
    }
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    out("%s (%s):", label, how);
    check("    utimensat by path", utimensat(AT_FDCWD, path, NULL, 0));
    check("    utimensat /proc/self/fd/N", utimensat(AT_FDCWD, fd_path(fd), NULL, 0));
    check("    chmod /proc/self/fd/N", chmod(fd_path(fd), 0640));
    check("    chown /proc/self/fd/N", chown(fd_path(fd), 0, 0));
    int w = open(fd_path(fd), O_WRONLY | O_CLOEXEC);
    out("    reopen /proc/self/fd/N for writing: %s", w < 0 ? errname(errno) : "ok");
    if (w >= 0) {
        check("    write", write(w, "1\n", 2));
        close(w);
    }
    struct stat st;
    if (stat(path, &st) == 0)
        out("    mode %o size %lld", (unsigned)(st.st_mode & 07777), (long long)st.st_size);
    close(fd);
}

static void show_state(void)
{
    options_of(RUN);
    options_of(RUN "/systemd/incoming");
    touch_opath("  touch " RUN "/udev/queue", RUN "/udev/queue");
    touch_opath("  touch " RUN "/udev/data/c4:64", RUN "/udev/data/c4:64");
    int fd = open(RUN "/systemd/incoming", O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (fd >= 0) {
        out("  utimensat of the read-only incoming by /proc/self/fd/N: %s",
            utimensat(AT_FDCWD, fd_path(fd), NULL, 0) ? errname(errno) : "ok");
        close(fd);
    }
}

int main(void)
{
    mkdir(RUN, 0755);
    check("mount tmpfs on " RUN, mount("tmpfs", RUN, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755"));
    mkdir(RUN "/udev", 0755);
    mkdir(RUN "/udev/data", 0755);
    int data = open(RUN "/udev/data/c4:64", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (data >= 0)
        close(data);
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
    unlink(RUN "/udev/queue");
    unlink(RUN "/udev/data/c4:64");
    close(notify);
    unlink(RUN "/systemd/notify");
    check("umount " RUN, umount2(RUN, MNT_DETACH));
    check("rmdir " RUN, rmdir(RUN));
    return 0;
}
