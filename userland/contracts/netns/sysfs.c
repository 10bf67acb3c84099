/* /sys/class/net and the interfaces' attribute files, as a sysfs mounted
 * in the namespace shows them: lo's ifindex, iflink, address, broadcast,
 * addr_len, mtu, flags, type, operstate, carrier (EINVAL while down),
 * tx_queue_len, dev_id, uevent; the class link into
 * /sys/devices/virtual/net and the subsystem link back. In a new network
 * namespace (with a sysfs mounted there) lo starts down, then shows up
 * once brought up. */
#include "netns.h"
#include <sys/mount.h>

static void attr(const char *dir, const char *name)
{
    char path[600], buf[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("  %s: open %s", name, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        out("  %s: read %s", name, errname(e));
        return;
    }
    buf[n] = 0;
    for (char *c = buf; *c; c++)
        if (*c == '\n')
            *c = *(c + 1) ? ' ' : 0;
    out("  %s: %s", name, buf);
}

static void show_sys(const char *sys, const char *label)
{
    out("%s:", label);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/class/net", sys);
    DIR *d = opendir(dir);
    if (!d) {
        out("  opendir class/net: %s", errname(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            out("  class/net entry %s", e->d_name);
    closedir(d);
    char path[256], link[256];
    snprintf(path, sizeof path, "%s/class/net/lo", sys);
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n < 0 ? 0 : n] = 0;
    out("  class/net/lo -> %s", n < 0 ? errname(errno) : link);
    snprintf(path, sizeof path, "%s/class/net/lo/subsystem", sys);
    n = readlink(path, link, sizeof link - 1);
    link[n < 0 ? 0 : n] = 0;
    out("  lo/subsystem -> %s", n < 0 ? errname(errno) : link);
    snprintf(dir, sizeof dir, "%s/devices/virtual/net/lo", sys);
    const char *names[] = {"ifindex", "iflink", "address", "broadcast", "addr_len", "mtu", "flags", "type",
                           "operstate", "carrier", "tx_queue_len", "dev_id", "uevent"};
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
        attr(dir, names[i]);
}

int main(void)
{
    lo_up();
    mkdir("sys1", 0755);
    check("mount sysfs", mount("sysfs", "sys1", "sysfs", 0, NULL));
    show_sys("sys1", "first namespace");
    umount("sys1");
    check("unshare(CLONE_NEWNET|CLONE_NEWNS)", unshare(CLONE_NEWNET | CLONE_NEWNS));
    check("make / private", mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
    check("mount sysfs", mount("sysfs", "sys1", "sysfs", 0, NULL));
    show_sys("sys1", "new namespace");
    out("RTM_NEWLINK lo up: %s", nlerr(link_set_up(1, 1)));
    show_sys("sys1", "lo up");
    umount("sys1");
    rmdir("sys1");
    return 0;
}
