/* Mount propagation: a mount made shared (MS_SHARED) gets a peer group
 * (`shared:N` in /proc/self/mountinfo); after unshare(CLONE_NEWNS) the
 * copy is its peer, so mounts below it made on either side appear on
 * the other; MS_SLAVE makes the child's copy receive (`master:N`) but not
 * send; MS_PRIVATE stops both; MS_UNBINDABLE refuses bind mounts of it;
 * MS_REC applies to the mounts below; and the flags' errors. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static char cwd[256];

/* Prints the optional fields of the mountinfo line of ./dir. */
static void fields(const char *who, const char *dir)
{
    char want[512], text[16384];
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        char *at = strstr(l, want);
        if (!at)
            continue;
        /* after the mount point: options, then optional fields up to " - " */
        char *opts = at + strlen(want);
        char *sep = strstr(opts, " - ");
        char *sp = strchr(opts, ' ');
        if (sep && sp && sp < sep) {
            *sep = 0;
            out("%s %s: fields [%s]", who, dir, sp + 1);
        } else {
            out("%s %s: fields []", who, dir);
        }
        return;
    }
    out("%s %s: no line", who, dir);
}

static const char *is_mounted(const char *dir)
{
    struct stat a, b;
    char parent[300];
    snprintf(parent, sizeof parent, "%s/..", dir);
    if (stat(dir, &a) < 0 || stat(parent, &b) < 0)
        return "missing";
    return a.st_dev != b.st_dev ? "mounted" : "not mounted";
}

static int go[2], back[2];
static void signal_other(int fd) { write(fd, "x", 1); }
static void wait_other(int fd) { char c; read(fd, &c, 1); }

int main(void)
{
    getcwd(cwd, sizeof cwd);
    mkdir("s", 0755);
    check("mount tmpfs on s", mount("none", "s", "tmpfs", 0, NULL));
    mkdir("s/x", 0755);
    mkdir("s/y", 0755);
    mkdir("s/z", 0755);
    mkdir("s/w", 0755);
    fields("parent", "s");
    check("MS_SHARED|MS_PRIVATE", mount(NULL, "s", NULL, MS_SHARED | MS_PRIVATE, NULL));
    check("MS_SHARED on a directory that is no mount", mount(NULL, "s/x", NULL, MS_SHARED, NULL));
    check("MS_SHARED|MS_RDONLY", mount(NULL, "s", NULL, MS_SHARED | MS_RDONLY, NULL));
    check("make-shared s", mount(NULL, "s", NULL, MS_SHARED, NULL));
    fields("parent", "s");
    check("make-shared s again", mount(NULL, "s", NULL, MS_SHARED, NULL));
    fields("parent", "s");
    pipe(go);
    pipe(back);
    pid_t pid = fork();
    if (pid == 0) {
        check("child unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        fields("child", "s");
        check("child mount tmpfs on s/x", mount("none", "s/x", "tmpfs", 0, NULL));
        fields("child", "s/x");
        signal_other(back[1]);
        wait_other(go[0]);
        out("child s/y: %s", is_mounted("s/y"));
        fields("child", "s/y");
        check("child make-slave s", mount(NULL, "s", NULL, MS_SLAVE, NULL));
        fields("child", "s");
        check("child mount tmpfs on s/z", mount("none", "s/z", "tmpfs", 0, NULL));
        signal_other(back[1]);
        wait_other(go[0]);
        out("child s/w: %s", is_mounted("s/w"));
        fields("child", "s/w");
        check("child umount s/w", umount("s/w"));
        signal_other(back[1]);
        wait_other(go[0]);
        _exit(0);
    }
    wait_other(back[0]);
    out("parent s/x: %s", is_mounted("s/x"));
    fields("parent", "s/x");
    check("parent mount tmpfs on s/y", mount("none", "s/y", "tmpfs", 0, NULL));
    signal_other(go[1]);
    wait_other(back[0]);
    out("parent s/z: %s", is_mounted("s/z"));
    check("parent mount tmpfs on s/w", mount("none", "s/w", "tmpfs", 0, NULL));
    signal_other(go[1]);
    wait_other(back[0]);
    out("parent s/w after the slave's umount: %s", is_mounted("s/w"));
    signal_other(go[1]);
    reap("child", pid);
    fields("parent", "s");
    check("umount s/x", umount("s/x"));
    check("umount s/y", umount("s/y"));
    check("umount s/w", umount("s/w"));
    check("make-rprivate s", mount(NULL, "s", NULL, MS_PRIVATE | MS_REC, NULL));
    fields("parent", "s");
    check("make-unbindable s", mount(NULL, "s", NULL, MS_UNBINDABLE, NULL));
    fields("parent", "s");
    mkdir("t", 0755);
    check("bind s on t", mount("s", "t", NULL, MS_BIND, NULL));
    check("make-private s", mount(NULL, "s", NULL, MS_PRIVATE, NULL));
    fields("parent", "s");
    check("bind s on t", mount("s", "t", NULL, MS_BIND, NULL));
    check("umount t", umount("t"));
    check("umount s", umount("s"));
    return 0;
}
