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
#include "service.h"

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
    int notify = service_run_create();
    mkdir(RUN "/udev/data", 0755);
    int data = open(RUN "/udev/data/c4:64", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (data >= 0)
        close(data);
    service_show_both(show_state);
    unlink(RUN "/udev/queue");
    unlink(RUN "/udev/data/c4:64");
    service_run_remove(notify);
    return 0;
}
