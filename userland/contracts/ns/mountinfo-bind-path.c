/* Mounts made through a recursive bind of a tree are listed in
 * /proc/self/mountinfo where they were made, as systemd's namespace setup
 * needs: it binds / on /run/systemd/unit-root, then binds paths below it
 * on themselves (naming each by an O_PATH descriptor, /proc/self/fd/N),
 * finds each in mountinfo by its path and remounts it read-only
 * (ProtectHostname= does so with the files /proc/sys/kernel/hostname and
 * domainname). A bind of a file is listed too. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static char cwd[512];

/* The mount options (field 6) of the last mountinfo line whose mount
 * point is cwd/rel, or "none". */
static const char *options_of(const char *rel, char *buf, size_t len)
{
    char want[700];
    if (rel[0] == '/')
        snprintf(want, sizeof want, "%s", rel);
    else
        snprintf(want, sizeof want, "%s/%s", cwd, rel);
    snprintf(buf, len, "none");
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return buf;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char point[700], opts[256];
        if (sscanf(line, "%*s %*s %*s %*s %699s %255s", point, opts) == 2 && strcmp(point, want) == 0) {
            char *comma = strchr(opts, ',');
            if (comma)
                *comma = 0;
            snprintf(buf, len, "%s", opts);
        }
    }
    fclose(f);
    return buf;
}

static void show_mount(const char *rel)
{
    char buf[256];
    out("mountinfo %s: %s", rel, options_of(rel, buf, sizeof buf));
}

/* Binds `rel` on itself as systemd does: through an O_PATH descriptor. */
static void bind_self_by_fd(const char *rel)
{
    char label[256], proc[64];
    int fd = open(rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    snprintf(label, sizeof label, "open O_PATH %s", rel);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    snprintf(label, sizeof label, "bind %s on itself by fd", rel);
    check(label, mount(proc, proc, NULL, MS_BIND | MS_REC, NULL));
    close(fd);
    fd = open(rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    snprintf(label, sizeof label, "remount %s bind,ro by fd", rel);
    check(label, mount(NULL, proc, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL));
    close(fd);
}

int main(void)
{
    if (!getcwd(cwd, sizeof cwd)) {
        out("getcwd: %s", errname(errno));
        return 0;
    }
    if (strcmp(cwd, "/") == 0)
        cwd[0] = 0;
    mkdir("/mountinfo-bind-path", 0755);
    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("make / slave recursively", mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL));
        mkdir("t", 0755);
        check("mount tmpfs on t", mount("none", "t", "tmpfs", 0, NULL));
        mkdir("t/src", 0755);
        mkdir("t/src/a", 0755);
        mkdir("t/src/b", 0755);
        put_file("t/src/file", "x");
        mkdir("t/root", 0755);
        check("bind t/src on t/root recursively", mount("t/src", "t/root", NULL, MS_BIND | MS_REC, NULL));
        show_mount("t/root");
        bind_self_by_fd("t/root/a");
        show_mount("t/root/a");
        show_mount("t/src/a");
        bind_self_by_fd("t/root/file");
        show_mount("t/root/file");
        show_mount("t/src/file");
        check("mount tmpfs on t/root/b", mount("none", "t/root/b", "tmpfs", 0, NULL));
        show_mount("t/root/b");
        show_mount("t/src/b");
        /* The whole tree, as systemd binds / on /run/systemd/unit-root. */
        mkdir("t/all", 0755);
        check("bind / on t/all recursively", mount("/", "t/all", NULL, MS_BIND | MS_REC, NULL));
        show_mount("t/all");
        bind_self_by_fd("t/all/mountinfo-bind-path");
        show_mount("t/all/mountinfo-bind-path");
        show_mount("/mountinfo-bind-path");
        _exit(0);
    }
    reap("child", pid);
    char buf[256];
    out("parent: mountinfo t: %s", options_of("t", buf, sizeof buf));
    check("rmdir /mountinfo-bind-path", rmdir("/mountinfo-bind-path"));
    return 0;
}
