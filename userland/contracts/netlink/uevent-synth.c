/* Writing an action to a device's sysfs uevent file (what `udevadm
 * trigger` does at boot, the coldplug) broadcasts the device's uevent on
 * NETLINK_KOBJECT_UEVENT group 1: "ACTION@DEVPATH", ACTION, DEVPATH,
 * SUBSYSTEM, the keys the uevent file shows, SEQNUM (the new value of
 * /sys/kernel/uevent_seqnum). An unknown action is EINVAL. Devices:
 * /dev/null and the first serial port (whose place under /sys/devices
 * differs between machines: only its end and its agreement with the
 * /sys/class link are printed). */
#include <sys/mount.h>
#include <limits.h>
#include <stdlib.h>
#include "nl.h"

static unsigned long long seqnum(void)
{
    char buf[32] = {0};
    int fd = open("s/kernel/uevent_seqnum", O_RDONLY);
    if (fd < 0)
        return 0;
    read(fd, buf, sizeof buf - 1);
    close(fd);
    return strtoull(buf, NULL, 10);
}

static void show_file(const char *path)
{
    char buf[512] = {0};
    int fd = open(path, O_RDONLY);
    long n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    for (long i = 0; i < n; i++)
        if (buf[i] == '\n')
            buf[i] = '|';
    out("%s: %s", path, n < 0 ? errname(errno) : buf);
}

static void trigger(int nl, const char *cls, const char *what)
{
    char path[256], real[PATH_MAX];
    snprintf(path, sizeof path, "s/class/%s/uevent", cls);
    snprintf(real, sizeof real, "s/class/%s", cls);
    char *full = realpath(real, NULL);
    /* The device's path under the sysfs mount ("/devices/..."). */
    char *devpath = full ? strstr(full, "/s/devices/") : NULL;
    unsigned long long before = seqnum();
    int fd = open(path, O_WRONLY);
    long w = write(fd, what, strlen(what));
    char shown[32];
    snprintf(shown, sizeof shown, "%s", what);
    for (char *c = shown; *c; c++)
        if (*c == '\n')
            *c = '|';
    out("write %s '%s': %ld %s", cls, shown, w, w < 0 ? errname(errno) : "");
    close(fd);
    if (w < 0) {
        free(full);
        return;
    }
    char buf[4096];
    for (;;) {
        long n = recv(nl, buf, sizeof buf - 1, MSG_DONTWAIT);
        if (n < 0) {
            out("  no event: %s", errname(errno));
            break;
        }
        buf[n] = 0;
        /* Skip events of other devices (none should come). */
        char *at = strchr(buf, '@');
        if (!at || !devpath || strcmp(at + 1, devpath + 2) != 0)
            continue;
        out("  header action: %.*s, path is /sys/class link's: yes", (int)(at - buf), buf);
        for (char *p = buf + strlen(buf) + 1; p < buf + n; p += strlen(p) + 1) {
            if (!strncmp(p, "DEVPATH=", 8)) {
                const char *tail = strrchr(p, '/');
                out("  DEVPATH=...%s same as header: %s", tail, yesno(!strcmp(p + 8, at + 1)));
            } else if (!strncmp(p, "SEQNUM=", 7)) {
                unsigned long long s = strtoull(p + 7, NULL, 10);
                out("  SEQNUM: before+1 %s, uevent_seqnum %s", yesno(s == before + 1), yesno(s == seqnum()));
            } else {
                out("  %s", p);
            }
        }
        break;
    }
    free(full);
}

int main(void)
{
    mkdir("s", 0755);
    if (mount("sysfs", "s", "sysfs", 0, NULL) < 0) {
        out("mount sysfs: %s", errname(errno));
        return 0;
    }
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
    check("bind group 1", bind(nl, (struct sockaddr *)&sa, sizeof sa));
    show_file("s/class/mem/null/uevent");
    show_file("s/class/tty/ttyS0/uevent");
    struct stat st;
    stat("s/class/mem/null/uevent", &st);
    out("uevent mode %o", st.st_mode & 07777);
    trigger(nl, "mem/null", "add\n");
    trigger(nl, "mem/null", "change");
    trigger(nl, "tty/ttyS0", "add");
    trigger(nl, "tty/ttyS0", "bogus");
    trigger(nl, "tty/ttyS0", "ad");
    trigger(nl, "tty/ttyS0", "\n");
    trigger(nl, "tty/ttyS0", "add junk");
    umount("s");
    return 0;
}
