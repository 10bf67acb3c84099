/* /proc/self/mountinfo's mount and parent ids with bind mounts: a
 * directory bound over itself sits on the mount it is part of, and a
 * mount made elsewhere on the same file system afterwards sits on the
 * mount whose tree holds its mount point, not on the bind; ids are
 * distinct; an unmount in the middle leaves the others' parents. */
#include "../common.h"
#include <sys/mount.h>

static char cwd[256];

/* The mount id and parent id of the mountinfo line of ./dir (the last). */
static void ids(const char *dir, int *id, int *parent)
{
    char want[512], text[16384];
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    *id = *parent = -1;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
        if (strstr(l, want))
            sscanf(l, "%d %d", id, parent);
}

int main(void)
{
    getcwd(cwd, sizeof cwd);
    mkdir("t", 0755);
    check("mount tmpfs on t", mount("none", "t", "tmpfs", 0, NULL));
    mkdir("t/usr", 0755);
    mkdir("t/var", 0755);
    mkdir("t/var/x", 0755);
    check("bind t/usr on itself", mount("t/usr", "t/usr", NULL, MS_BIND, NULL));
    check("mount tmpfs on t/var/x", mount("none", "t/var/x", "tmpfs", 0, NULL));
    int t, tp, usr, usrp, x, xp;
    ids("t", &t, &tp);
    ids("t/usr", &usr, &usrp);
    ids("t/var/x", &x, &xp);
    out("t/usr's parent is t: %s", yesno(usrp == t));
    out("t/var/x's parent is t: %s", yesno(xp == t));
    out("ids distinct: %s", yesno(t != usr && usr != x && t != x));
    check("umount t/usr", umount("t/usr"));
    ids("t/var/x", &x, &xp);
    out("after umount t/usr, t/var/x's parent is t: %s", yesno(xp == t));
    check("umount t/var/x", umount("t/var/x"));
    check("umount t", umount("t"));
    return 0;
}
