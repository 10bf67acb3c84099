/* pivot_root(2) in a new mount namespace: EINVAL while the root is
 * rootfs (no parent mount) and for a new root that is no mount point or a
 * put_old outside it, ENOTDIR for a file, EPERM for uid 1000; then from a
 * chroot into a tmpfs mount, pivoting to a second tmpfs: the new root
 * holds put_old, the old root is mounted there with its files,
 * /proc/self/mountinfo's root line changes, the working directory moves
 * with the root, and the old root can be detached with MNT_DETACH. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static void show_root(const char *label)
{
    struct stat st;
    /* The names of /, sorted (tmpfs's listing order is its own). */
    static const char *known[] = {"marker", "new", "newfile", "old", "plain"};
    char list[512] = "";
    for (unsigned i = 0; i < sizeof known / sizeof *known; i++) {
        char path[64];
        snprintf(path, sizeof path, "/%s", known[i]);
        if (lstat(path, &st) == 0) {
            strcat(list, " ");
            strcat(list, known[i]);
        }
    }
    int count = 0;
    DIR *d = opendir("/");
    struct dirent *e;
    while (d && (e = readdir(d)))
        count += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    out("%s: / has%s (%d entries)", label, list, count);
    out("%s: /old/marker %s", label, stat("/old/marker", &st) == 0 ? "present" : errname(errno));
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        mkdir("outer", 0755);
        mkdir("plain", 0755);
        put_file("file", "x");
        check("pivot_root(plain, plain) with rootfs root", syscall(SYS_pivot_root, "plain", "plain"));
        check("mount tmpfs on outer", mount("none", "outer", "tmpfs", 0, NULL));
        put_file("outer/marker", "old root\n");
        mkdir("outer/new", 0755);
        mkdir("outer/plain", 0755);
        check("mount tmpfs on outer/new", mount("none", "outer/new", "tmpfs", 0, NULL));
        mkdir("outer/new/old", 0755);
        put_file("outer/new/newfile", "new root\n");
        check("chdir outer", chdir("outer"));
        check("chroot .", chroot("."));
        check("pivot_root(file) ENOTDIR", syscall(SYS_pivot_root, "/marker", "/new/old"));
        check("pivot_root(no mount point)", syscall(SYS_pivot_root, "/plain", "/plain"));
        check("pivot_root(put_old outside)", syscall(SYS_pivot_root, "/new", "/plain"));
        pid_t p = fork();
        if (p == 0) {
            if (setgid(1000) < 0 || setuid(1000) < 0)
                _exit(9);
            check("uid 1000 pivot_root", syscall(SYS_pivot_root, "/new", "/new/old"));
            _exit(0);
        }
        reap("uid 1000 child", p);
        check("pivot_root(/new, /new/old)", syscall(SYS_pivot_root, "/new", "/new/old"));
        char cwd[256];
        out("cwd: %s", getcwd(cwd, sizeof cwd) ? cwd : errname(errno));
        show_root("after pivot");
        struct stat st;
        out("/old/new is %s", stat("/old/new/newfile", &st) == 0 ? "still the new root" : "an empty directory");
        check("umount2(/old, MNT_DETACH)", umount2("/old", MNT_DETACH));
        show_root("after detach");
        _exit(0);
    }
    reap("child", pid);
    struct stat st;
    out("parent: outer mounted here: %s", stat("outer/marker", &st) == 0 ? "yes" : "no");
    return 0;
}
