/* MS_REMOUNT|MS_RDONLY without MS_BIND changes the file system (the
 * superblock), not just one mount: every mount of it becomes read-only
 * (a bind mount of part of it too), mountinfo's super options column says
 * ro on each while the bind's own mount options still say rw, statfs
 * reports ST_RDONLY and /proc/self/mounts ro; the remount is EBUSY while
 * a file of it is open for writing (through any of its mounts); a
 * remount without MS_RDONLY makes it writable again. A bind remount
 * read-only changes that mount only, EBUSY while a file is open for
 * writing through it (not through another mount). */
#include "../common.h"
#include <sys/mount.h>
#include <sys/statfs.h>

static char cwd[256];

/* The per-mount options' first word and the super options' first word
 * of ./dir's mountinfo line. */
static void mountinfo(const char *label, const char *dir)
{
    char want[512], text[32768];
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        char *at = strstr(l, want);
        if (!at)
            continue;
        char mount_opts[8] = "", super_opts[8] = "", fstype[32], source[64];
        sscanf(at + strlen(want), "%2s", mount_opts);
        char *sep = strstr(at, " - ");
        if (sep)
            sscanf(sep + 3, "%31s %63s %2s", fstype, source, super_opts);
        out("%s: mountinfo %s: mount %s, super %s", label, dir, mount_opts, super_opts);
        return;
    }
    out("%s: mountinfo %s: no line", label, dir);
}

/* The options' first word of ./dir's /proc/self/mounts line. */
static void mounts(const char *label, const char *dir)
{
    char want[512], text[32768];
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    int fd = open("/proc/self/mounts", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        char *at = strstr(l, want);
        if (!at)
            continue;
        char fstype[32], opts[8] = "";
        sscanf(at + strlen(want), "%31s %2s", fstype, opts);
        out("%s: mounts %s: %s", label, dir, opts);
        return;
    }
    out("%s: mounts %s: no line", label, dir);
}

static void probe(const char *label)
{
    char l[160];
    int fd = open("b/f", O_WRONLY);
    out("%s: open b/f for writing: %s", label, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    fd = open("t/top", O_WRONLY);
    out("%s: open t/top for writing: %s", label, fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    snprintf(l, sizeof l, "%s: mkdir b/dir", label);
    check(l, mkdir("b/dir", 0755));
    rmdir("b/dir");
    struct statfs st;
    statfs("b", &st);
    out("%s: statfs b ST_RDONLY: %s", label, yesno(st.f_flags & ST_RDONLY));
    statfs("t", &st);
    out("%s: statfs t ST_RDONLY: %s", label, yesno(st.f_flags & ST_RDONLY));
    mountinfo(label, "t");
    mountinfo(label, "b");
    mounts(label, "t");
    mounts(label, "b");
}

int main(void)
{
    getcwd(cwd, sizeof cwd);
    mkdir("t", 0755);
    mkdir("b", 0755);
    check("mount tmpfs on t", mount("none", "t", "tmpfs", 0, NULL));
    mkdir("t/d", 0755);
    put_file("t/d/f", "x");
    put_file("t/top", "x");
    check("bind t/d on b", mount("t/d", "b", NULL, MS_BIND, NULL));
    probe("rw");
    int fd = open("b/f", O_WRONLY);
    show("remount t ro with b/f open for writing", mount(NULL, "t", NULL, MS_REMOUNT | MS_RDONLY, NULL));
    close(fd);
    fd = open("t/top", O_RDONLY);
    check("remount t ro with t/top open for reading", mount(NULL, "t", NULL, MS_REMOUNT | MS_RDONLY, NULL));
    close(fd);
    probe("ro");
    check("remount t ro again", mount(NULL, "t", NULL, MS_REMOUNT | MS_RDONLY, NULL));
    check("remount t rw", mount(NULL, "t", NULL, MS_REMOUNT, NULL));
    probe("rw again");
    fd = open("t/top", O_WRONLY);
    show("remount b bind,ro with t/top (through t) open for writing", mount(NULL, "b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
    check("remount b bind,rw", mount(NULL, "b", NULL, MS_REMOUNT | MS_BIND, NULL));
    close(fd);
    fd = open("b/f", O_WRONLY);
    show("remount b bind,ro with b/f open for writing", mount(NULL, "b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
    close(fd);
    check("remount b bind,ro", mount(NULL, "b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
    probe("bind ro");
    check("umount b", umount("b"));
    check("umount t", umount("t"));
    return 0;
}
