/* mountinfo's fourth field is the root of the mount within its file
 * system: `/` for a mount of a whole file system, the bound directory's
 * path from the file system's root for a bind (a bind of a bind shows
 * the same), its new path after a rename; proc's and sysfs's binds too. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static char cwd[512];

/* The root field (4) of the last mountinfo line whose mount point is
 * cwd/rel, or "none". */
static const char *root_of(const char *rel, char *buf, size_t len)
{
    char want[700];
    snprintf(want, sizeof want, "%s/%s", cwd, rel);
    snprintf(buf, len, "none");
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return buf;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        char root[700], point[700];
        if (sscanf(line, "%*s %*s %*s %699s %699s", root, point) == 2 && strcmp(point, want) == 0)
            snprintf(buf, len, "%s", root);
    }
    fclose(f);
    return buf;
}

static void show_root(const char *rel)
{
    char buf[700];
    out("root of %s: %s", rel, root_of(rel, buf, sizeof buf));
}

int main(void)
{
    if (!getcwd(cwd, sizeof cwd)) {
        out("getcwd: %s", errname(errno));
        return 0;
    }
    if (strcmp(cwd, "/") == 0)
        cwd[0] = 0;
    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("make / private recursively", mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
        mkdir("mr", 0755);
        check("mount tmpfs on mr", mount("none", "mr", "tmpfs", 0, NULL));
        show_root("mr");
        mkdir("mr/a", 0755);
        mkdir("mr/a/b", 0755);
        mkdir("mr/a/b/z", 0755);
        for (const char *d = "cefghp"; *d; d++) {
            char p[16];
            snprintf(p, sizeof p, "mr/%c", *d);
            mkdir(p, 0755);
        }
        check("bind mr/a/b on mr/c", mount("mr/a/b", "mr/c", NULL, MS_BIND, NULL));
        show_root("mr/c");
        check("bind mr/c (a bind) on mr/e", mount("mr/c", "mr/e", NULL, MS_BIND, NULL));
        show_root("mr/e");
        check("bind mr/c/z on mr/f", mount("mr/c/z", "mr/f", NULL, MS_BIND, NULL));
        show_root("mr/f");
        check("bind mr on mr/g", mount("mr", "mr/g", NULL, MS_BIND, NULL));
        show_root("mr/g");
        check("rename mr/a/b to mr/a/q", rename("mr/a/b", "mr/a/q"));
        show_root("mr/c");
        show_root("mr/f");
        check("mount proc on mr/p", mount("proc", "mr/p", "proc", 0, NULL));
        show_root("mr/p");
        check("bind mr/p/sys on mr/h", mount("mr/p/sys", "mr/h", NULL, MS_BIND, NULL));
        show_root("mr/h");
        _exit(0);
    }
    reap("child", pid);
    rmdir("mr");
    return 0;
}
