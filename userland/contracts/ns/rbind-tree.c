/* mount(MS_BIND|MS_REC) copies the mounts below the source with it (what
 * `mount --rbind` and systemd's unit-root setup rely on): each copy has a
 * mount id of its own and the copy of its parent as parent in
 * /proc/self/mountinfo, shows the same file system, leaves out
 * unbindable mounts (and what is below them), and a copy of a shared
 * mount is its peer (a mount made below the source appears below the
 * copy). A plain MS_BIND copies no submounts. umount of the copy's root
 * is EBUSY while copies sit on it; MNT_DETACH takes the whole tree. */
#include "../common.h"
#include <sys/mount.h>
#include <sys/stat.h>

static char cwd[256];

struct info {
    int id, parent;
    char fields[128];
};

/* The mountinfo line of ./dir (the last): ids and optional fields. */
static int info(const char *dir, struct info *in)
{
    char want[512], text[32768];
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    int found = 0;
    in->id = in->parent = -1;
    in->fields[0] = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        char *at = strstr(l, want);
        if (!at)
            continue;
        found = 1;
        sscanf(l, "%d %d", &in->id, &in->parent);
        char *opts = at + strlen(want);
        char *sep = strstr(opts, " - ");
        char *sp = strchr(opts, ' ');
        in->fields[0] = 0;
        if (sep && sp && sp < sep) {
            *sep = 0;
            snprintf(in->fields, sizeof in->fields, "%s", sp + 1);
        }
    }
    return found;
}

/* How many mountinfo lines have a mount point at or below ./dir. */
static int lines_below(const char *dir)
{
    char want[512], want_slash[520], text[32768];
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    snprintf(want_slash, sizeof want_slash, " %s/%s/", cwd, dir);
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    int count = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
        if (strstr(l, want) || strstr(l, want_slash))
            count++;
    return count;
}

static const char *mounted(const char *dir)
{
    struct stat a, b;
    char parent[300];
    snprintf(parent, sizeof parent, "%s/..", dir);
    if (stat(dir, &a) < 0 || stat(parent, &b) < 0)
        return "missing";
    return a.st_dev != b.st_dev ? "mounted" : "not mounted";
}

static const char *same_fs(const char *x, const char *y)
{
    struct stat a, b;
    if (stat(x, &a) < 0 || stat(y, &b) < 0)
        return "missing";
    return yesno(a.st_dev == b.st_dev);
}

int main(void)
{
    getcwd(cwd, sizeof cwd);
    mkdir("t", 0755);
    check("mount tmpfs on t", mount("none", "t", "tmpfs", 0, NULL));
    mkdir("t/src", 0755);
    mkdir("t/src/a", 0755);
    mkdir("t/src/b", 0755);
    mkdir("t/src/c", 0755);
    check("mount tmpfs on t/src/a", mount("none", "t/src/a", "tmpfs", 0, NULL));
    mkdir("t/src/a/deep", 0755);
    mkdir("t/src/a/p", 0755);
    check("mount tmpfs on t/src/a/deep", mount("none", "t/src/a/deep", "tmpfs", 0, NULL));
    check("mount tmpfs on t/src/b", mount("none", "t/src/b", "tmpfs", 0, NULL));
    mkdir("t/src/b/in", 0755);
    check("mount tmpfs on t/src/b/in", mount("none", "t/src/b/in", "tmpfs", 0, NULL));
    check("make t/src/b unbindable", mount(NULL, "t/src/b", NULL, MS_UNBINDABLE, NULL));
    check("make t/src/a shared", mount(NULL, "t/src/a", NULL, MS_SHARED, NULL));
    put_file("t/src/a/deep/f", "x");

    mkdir("t/plain", 0755);
    check("bind t/src on t/plain", mount("t/src", "t/plain", NULL, MS_BIND, NULL));
    out("plain bind: t/plain/a %s, mountinfo lines at or below t/plain: %d", mounted("t/plain/a"), lines_below("t/plain"));

    mkdir("t/dst", 0755);
    check("bind t/src on t/dst recursively", mount("t/src", "t/dst", NULL, MS_BIND | MS_REC, NULL));
    out("t/dst/a: %s, same fs as t/src/a: %s", mounted("t/dst/a"), same_fs("t/dst/a", "t/src/a"));
    out("t/dst/a/deep: %s, same fs as t/src/a/deep: %s", mounted("t/dst/a/deep"), same_fs("t/dst/a/deep", "t/src/a/deep"));
    out("t/dst/a/deep/f there: %s", yesno(access("t/dst/a/deep/f", F_OK) == 0));
    out("t/dst/b (unbindable): %s", mounted("t/dst/b"));
    out("t/dst/b/in: %s", mounted("t/dst/b/in"));
    out("mountinfo lines at or below t/dst: %d", lines_below("t/dst"));
    struct info dst, a, deep, src, srca, srcdeep;
    info("t/dst", &dst);
    info("t/dst/a", &a);
    info("t/dst/a/deep", &deep);
    info("t/src/a", &srca);
    info("t/src/a/deep", &srcdeep);
    info("t", &src);
    out("t/dst's parent is t: %s", yesno(dst.parent == src.id));
    out("t/dst/a's parent is t/dst: %s", yesno(a.parent == dst.id));
    out("t/dst/a/deep's parent is t/dst/a: %s", yesno(deep.parent == a.id));
    out("copies have ids of their own: %s", yesno(a.id != srca.id && deep.id != srcdeep.id && a.id != deep.id && dst.id != a.id));
    out("copy of shared t/src/a is its peer: %s", yesno(strcmp(a.fields, srca.fields) == 0 && strncmp(a.fields, "shared:", 7) == 0));
    out("copy of private t/src/a/deep is private: %s", yesno(deep.fields[0] == 0));

    check("mount tmpfs on t/src/a/p", mount("none", "t/src/a/p", "tmpfs", 0, NULL));
    out("t/dst/a/p (propagated from the peer): %s", mounted("t/dst/a/p"));
    put_file("t/src/a/p/g", "x");
    out("t/dst/a/p/g there: %s", yesno(access("t/dst/a/p/g", F_OK) == 0));

    show("umount t/dst", umount("t/dst"));
    check("umount -l t/dst", umount2("t/dst", MNT_DETACH));
    out("after umount -l: t/dst %s, t/dst/a %s, mountinfo lines at or below t/dst: %d", mounted("t/dst"), mounted("t/dst/a"), lines_below("t/dst"));
    out("t/src/a still %s, t/src/a/deep %s, t/src/a/p %s", mounted("t/src/a"), mounted("t/src/a/deep"), mounted("t/src/a/p"));

    check("make t/src/a private", mount(NULL, "t/src/a", NULL, MS_PRIVATE, NULL));
    show("rbind unbindable t/src/b", mount("t/src/b", "t/dst", NULL, MS_BIND | MS_REC, NULL));
    check("umount -l t", umount2("t", MNT_DETACH));
    out("mountinfo lines at or below t: %d", lines_below("t"));
    return 0;
}
