/* A file system mounted again on its own root (what libselinux's
 * selinux_init_load_policy does to /proc and /sys at systemd's start, and
 * `mount --bind d d`): paths through the mount point, `..` out of it and
 * the mount table all keep working; each umount takes off one layer. */
#include <sys/mount.h>
#include "common.h"

static void probe(const char *label)
{
    struct stat st;
    int fd = open("p/self/stat", O_RDONLY);
    out("%s: open p/self/stat %s", label, fd >= 0 ? "ok" : errname(errno));
    if (fd >= 0)
        close(fd);
    out("%s: stat p/.. %s", label, stat("p/..", &st) == 0 ? "ok" : errname(errno));
    out("%s: stat b/d/.. %s", label, stat("b/d/..", &st) == 0 ? "ok" : errname(errno));
    int n = 0;
    FILE *f = fopen("/proc/self/mounts", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "/p proc ") || strstr(line, "/b tmpfs "))
            n++;
    if (f)
        fclose(f);
    out("%s: mount table lines for p and b %d", label, n);
}

int main(void)
{
    mkdir("p", 0755);
    mkdir("b", 0755);
    if (mount("proc", "p", "proc", 0, NULL) < 0) {
        out("mount proc: %s", errname(errno));
        return 0;
    }
    check("mount tmpfs on b", mount("none", "b", "tmpfs", 0, NULL));
    mkdir("b/d", 0755);
    probe("once");
    check("mount proc again on p", mount("proc", "p", "proc", 0, NULL));
    check("bind b on b", mount("b", "b", NULL, MS_BIND, NULL));
    probe("twice");
    check("umount p", umount("p"));
    check("umount b", umount("b"));
    probe("after one umount");
    check("umount p", umount("p"));
    check("umount b", umount("b"));
    struct stat st;
    out("after both: p/self %s", stat("p/self", &st) == 0 ? "ok" : errname(errno));
    return 0;
}
