/* fs.mount-max (/proc/sys/fs/mount-max, 100000 by default) limits the
 * mounts of one mount namespace, all of them counted (its root too):
 * a mount, bind or recursive bind that would pass it fails with ENOSPC
 * and adds nothing (a recursive bind of three mounts needs room for
 * three). Root may set it from 1 to INT_MAX (EINVAL otherwise); others
 * cannot write it. Mounts made in an unprivileged user namespace count
 * the same. The limit is set back before the test ends. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

#define MAX_FILE "/proc/sys/fs/mount-max"

static long read_max(void)
{
    char buf[64] = "";
    int fd = open(MAX_FILE, O_RDONLY);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n > 0 ? atol(buf) : -1;
}

static int write_max(const char *text)
{
    int fd = open(MAX_FILE, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

static int set_max(long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld\n", v);
    return write_max(text);
}

static int mountinfo_lines(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return -1;
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

static void attempt(const char *label, int r)
{
    out("%s: %s", label, r == 0 ? "ok" : errname(errno));
}

int main(void)
{
    long orig = read_max();
    out("default mount-max: %ld", orig);
    for (const char *bad = "0\n-5\nabc\n2147483648\n"; *bad;) {
        char one[32];
        size_t len = strcspn(bad, "\n");
        snprintf(one, sizeof one, "%.*s", (int)len, bad);
        char label[64];
        snprintf(label, sizeof label, "write %s", one);
        attempt(label, write_max(one));
        bad += len + 1;
    }
    out("mount-max after bad writes: %ld", read_max());
    pid_t pid = fork();
    if (pid == 0) {
        setgid(65534);
        setuid(65534);
        int fd = open(MAX_FILE, O_WRONLY);
        out("open for writing as uid 65534: %s", fd < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("unprivileged writer", pid);

    pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("make / private recursively", mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
        mkdir("mm", 0755);
        check("mount tmpfs on mm", mount("none", "mm", "tmpfs", 0, NULL));
        mkdir("mm/d", 0755);
        mkdir("mm/e", 0755);
        mkdir("mm/e/x", 0755);
        mkdir("mm/e/y", 0755);
        mkdir("mm/f", 0755);
        check("mount tmpfs on mm/e/x", mount("none", "mm/e/x", "tmpfs", 0, NULL));
        check("mount tmpfs on mm/e/y", mount("none", "mm/e/y", "tmpfs", 0, NULL));
        int base = mountinfo_lines();
        check("set mount-max to the namespace's mounts + 5", set_max(base + 5));
        int made = 0;
        while (made < 20 && mount("mm/d", "mm/d", NULL, MS_BIND, NULL) == 0)
            made++;
        out("binds until the limit: %d, then %s", made, errname(errno));
        out("mounts added: %d", mountinfo_lines() - base);
        check("umount mm/d", umount("mm/d"));
        check("umount mm/d", umount("mm/d"));
        attempt("rbind mm/e (3 mounts) on mm/f with room for 2", mount("mm/e", "mm/f", NULL, MS_BIND | MS_REC, NULL));
        out("mounts added: %d", mountinfo_lines() - base);
        attempt("bind mm/e (1 mount) on mm/f", mount("mm/e", "mm/f", NULL, MS_BIND, NULL));
        attempt("mount tmpfs on mm/d", mount("none", "mm/d", "tmpfs", 0, NULL));
        attempt("mount tmpfs on mm/d at the limit", mount("none", "mm/d", "tmpfs", 0, NULL));
        attempt("mount proc on mm/d at the limit", mount("proc", "mm/d", "proc", 0, NULL));
        out("mounts added: %d", mountinfo_lines() - base);
        check("raise mount-max by 3", set_max(base + 8));
        attempt("rbind mm/e (3 mounts) on mm/f", mount("mm/e", "mm/f", NULL, MS_BIND | MS_REC, NULL));
        out("mounts added: %d", mountinfo_lines() - base);
        attempt("unshare(CLONE_NEWNS) at the limit", unshare(CLONE_NEWNS));
        check("set mount-max back", set_max(orig));
        _exit(0);
    }
    reap("child", pid);

    /* An unprivileged user namespace: its mounts count the same. */
    int up[2], down[2];
    if (pipe(up) < 0 || pipe(down) < 0)
        return 0;
    mkdir("mm-user", 0777);
    chmod("mm-user", 0777);
    pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        setgid(65534);
        setuid(65534);
        check("unshare(CLONE_NEWUSER | CLONE_NEWNS) as uid 65534", unshare(CLONE_NEWUSER | CLONE_NEWNS));
        int lines = mountinfo_lines();
        if (write(up[1], &lines, sizeof lines) != sizeof lines)
            _exit(1);
        char go;
        if (read(down[0], &go, 1) != 1)
            _exit(1);
        attempt("mount tmpfs on mm-user (room for 2)", mount("none", "mm-user", "tmpfs", 0, NULL));
        attempt("mount tmpfs on mm-user", mount("none", "mm-user", "tmpfs", 0, NULL));
        attempt("mount tmpfs on mm-user at the limit", mount("none", "mm-user", "tmpfs", 0, NULL));
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    int lines = 0;
    if (read(up[0], &lines, sizeof lines) == sizeof lines)
        check("set mount-max to the user namespace's mounts + 2", set_max(lines + 2));
    if (write(down[1], "g", 1) != 1)
        out("write: %s", errname(errno));
    reap("user-namespace child", pid);
    check("set mount-max back", set_max(orig));
    out("mount-max at the end: %ld", read_max());
    rmdir("mm-user");
    rmdir("mm");
    return 0;
}
