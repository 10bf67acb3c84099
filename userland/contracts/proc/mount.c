/* mount(2), umount2(2) and statfs(2): tmpfs with size and mode options,
 * read-only, noexec and remounts, bind mounts, proc and sysfs mounted a
 * second time, what /proc/self/mounts shows, and the errors. */
#include "../common.h"
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/vfs.h>

#define PROC_SUPER_MAGIC 0x9fa0
#define TMPFS_MAGIC 0x01021994
#define SYSFS_MAGIC 0x62656572
#define PIPEFS_MAGIC 0x50495045

static char cwd[256];

/* Prints the /proc/self/mounts line of mount point `dir` (relative to
 * the scratch directory), with the scratch path shortened to "./". */
static void show_mount(const char *dir)
{
    char path[512], text[16384];
    snprintf(path, sizeof path, " %s/%s ", cwd, dir);
    int fd = open("/proc/self/mounts", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    int found = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        char *at = strstr(l, path);
        if (at) {
            *at = 0;
            out("mounts: %s ./%s %s", l, dir, at + strlen(path));
            found = 1;
        }
    }
    if (!found)
        out("mounts: no line for ./%s", dir);
}

static void show_statfs(const char *label, const char *path)
{
    struct statfs s;
    if (statfs(path, &s) < 0) {
        out("statfs %s: %s", label, errname(errno));
        return;
    }
    const char *type = s.f_type == PROC_SUPER_MAGIC ? "proc" : s.f_type == TMPFS_MAGIC ? "tmpfs" : s.f_type == SYSFS_MAGIC ? "sysfs" : "other";
    out("statfs %s: %s bsize %ld namelen %ld flags %#lx", label, type, (long)s.f_bsize, (long)s.f_namelen, (long)s.f_flags);
}

int main(void)
{
    getcwd(cwd, sizeof cwd);
    mkdir("t", 0755);
    check("mount tmpfs size=1m,mode=700", mount("none", "t", "tmpfs", 0, "size=1m,mode=700"));
    show_mount("t");
    struct stat st;
    stat("t", &st);
    out("root mode: %04o", st.st_mode & 07777);
    struct statfs sf;
    statfs("t", &sf);
    out("blocks: %ld free: %ld", (long)sf.f_blocks, (long)sf.f_bfree);
    show_statfs("tmpfs", "t");
    put_file("t/f", "hello");
    int fd = open("t/big", O_WRONLY | O_CREAT, 0644);
    char block[4096] = {0};
    for (int i = 0; i < 10; i++)
        write(fd, block, sizeof block);
    close(fd);
    statfs("t", &sf);
    out("free after 11 pages of data: %ld", (long)sf.f_bfree);
    check("rename out of the mount", rename("t/f", "f"));
    check("link out of the mount", link("t/f", "f"));
    check("umount while a file is open", (fd = open("t/f", O_RDONLY), umount("t")));
    close(fd);
    check("umount", umount("t"));
    check("file gone with the mount", access("t/f", F_OK));
    check("umount again", umount("t"));
    check("umount a file", umount("/proc/version"));

    check("mount read-only", mount("none", "t", "tmpfs", MS_RDONLY, NULL));
    show_mount("t");
    check("create on a read-only mount", open("t/x", O_WRONLY | O_CREAT, 0644));
    check("mkdir on a read-only mount", mkdir("t/d", 0755));
    check("chmod on a read-only mount", chmod("t", 0700));
    show_statfs("read-only", "t");
    check("remount read-write", mount("none", "t", NULL, MS_REMOUNT, NULL));
    show_mount("t");
    check("create after remount", fd = open("t/x", O_WRONLY | O_CREAT, 0644));
    close(fd);
    check("remount noexec,nosuid,nodev", mount("none", "t", NULL, MS_REMOUNT | MS_NOEXEC | MS_NOSUID | MS_NODEV, NULL));
    show_mount("t");
    show_statfs("noexec", "t");
    fd = open("t/prog", O_WRONLY | O_CREAT, 0755);
    int self = open("/contracts/proc/mount", O_RDONLY);
    char buf[65536];
    ssize_t n;
    while ((n = read(self, buf, sizeof buf)) > 0)
        write(fd, buf, n);
    close(self);
    close(fd);
    char *args[] = {"t/prog", NULL};
    check("exec on a noexec mount", execve("t/prog", args, args + 1));
    check("make it private", mount(NULL, "t", NULL, MS_PRIVATE, NULL));
    check("private on a non-mount", mount(NULL, cwd, NULL, MS_PRIVATE, NULL));
    check("umount", umount2("t", 0));

    mkdir("src", 0755);
    put_file("src/in-source", "x");
    mkdir("b", 0755);
    check("bind mount", mount("src", "b", NULL, MS_BIND, NULL));
    check("source file through the bind", access("b/in-source", F_OK));
    put_file("b/through-bind", "y");
    check("written through the bind, seen in the source", access("src/through-bind", F_OK));
    check("umount the bind", umount("b"));
    check("source file after unbinding", access("b/in-source", F_OK));

    mkdir("p", 0755);
    check("mount proc again", mount("proc", "p", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
    show_mount("p");
    check("self in the second proc", access("p/self/stat", R_OK));
    show_statfs("proc", "p");
    check("umount it", umount("p"));
    mkdir("s", 0755);
    check("mount sysfs", mount("sysfs", "s", "sysfs", 0, NULL));
    show_mount("s");
    show_statfs("sysfs", "s");
    check("umount it", umount("s"));

    int pipefd[2];
    pipe(pipefd);
    fstatfs(pipefd[0], &sf);
    out("fstatfs of a pipe is pipefs: %s", yesno(sf.f_type == PIPEFS_MAGIC));
    show_statfs("/proc", "/proc");
    show_statfs("/tmp", "/tmp");
    show_statfs("/dev", "/dev");

    check("unknown type", mount("none", "t", "no-such-fs", 0, NULL));
    check("bad tmpfs option", mount("none", "t", "tmpfs", 0, "colour=blue"));
    check("missing target", mount("none", "missing", "tmpfs", 0, NULL));
    check("target is a file", mount("none", "src/in-source", "tmpfs", 0, NULL));
    check("umount with bad flags", umount2("t", 0x100));
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        check("mount as uid 1000", mount("none", "t", "tmpfs", 0, NULL));
        check("umount as uid 1000", umount("/proc"));
        _exit(0);
    }
    reap("uid 1000", pid);
    return 0;
}
