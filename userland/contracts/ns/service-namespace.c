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
#include "service.h"

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
    int notify = service_run_create();
    service_show_both(show_state);
    service_run_remove(notify);
    return 0;
}
