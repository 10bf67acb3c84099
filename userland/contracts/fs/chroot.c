/* chroot(2): absolute paths, absolute symlinks and ".." stop at the new
 * root; the working directory stays until chdir; getcwd inside; the root
 * is inherited across fork and kept across execve (the program is copied
 * into the jail and re-executed there); a second chroot nests; errors:
 * ENOENT, ENOTDIR, EFAULT, EACCES before EPERM for an unprivileged caller.
 * Every chroot happens in a child, so the test's own root never moves. */
#include "common.h"

static void pwd(const char *label)
{
    char buf[512];
    if (getcwd(buf, sizeof buf))
        out("%s: %s", label, buf);
    else
        out("%s: %s", label, errname(errno));
}

static void cat(const char *label, const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    out("%s: %s", label, buf);
}

static void copy_self(const char *to)
{
    int in = open("/proc/self/exe", O_RDONLY);
    int o = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[4096];
    ssize_t n;
    while (in >= 0 && o >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(o, buf, n) != n)
            break;
    close(in);
    close(o);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "in-jail") == 0) {
        /* Re-executed inside the jail: the root came along. */
        pwd("exec: cwd");
        cat("exec: /inside", "/inside");
        return 0;
    }
    mkdir("jail", 0755);
    mkdir("jail/sub", 0755);
    mkdir("jail/sub/deeper", 0755);
    put_file("jail/inside", "inside\n");
    put_file("jail/sub/deeper/nested", "nested\n");
    put_file("outside", "outside\n");
    symlink("/inside", "jail/abs");
    symlink("../../../../inside", "jail/sub/up");
    mkdir("locked", 0);
    copy_self("jail/prog");

    pid_t pid = fork();
    if (pid == 0) {
        check("chdir jail", chdir("jail"));
        check("chroot .", chroot("."));
        pwd("cwd after chroot");
        check("chdir /", chdir("/"));
        pwd("cwd");
        cat("/inside", "/inside");
        cat("/../../inside", "/../../inside");
        cat("absolute symlink", "abs");
        cat("relative symlink climbing out", "sub/up");
        cat("../outside", "../outside");
        check("chdir sub/deeper", chdir("sub/deeper"));
        pwd("cwd");
        check("chdir ../../..", chdir("../../.."));
        pwd("cwd");
        pid_t c = fork();
        if (c == 0) {
            cat("forked child: /inside", "/inside");
            _exit(0);
        }
        reap("forked child", c);
        c = fork();
        if (c == 0) {
            char *args[] = {"prog", "in-jail", NULL};
            char *env[] = {NULL};
            execve("/prog", args, env);
            out("execve /prog: %s", errname(errno));
            _exit(1);
        }
        reap("exec child", c);
        check("chroot sub (nested)", chroot("sub"));
        check("chdir /", chdir("/"));
        cat("/deeper/nested", "/deeper/nested");
        cat("/inside now", "/inside");
        _exit(0);
    }
    reap("jailed child", pid);

    pid = fork();
    if (pid == 0) {
        show("chroot missing", chroot("missing"));
        show("chroot a file", chroot("outside"));
        show("chroot empty path", chroot(""));
        rcheck("chroot bad pointer", rawsys(SYS_chroot, 16, 0, 0, 0, 0, 0));
        check("root chroot into mode 000 dir", chroot("locked"));
        _exit(0);
    }
    reap("error child", pid);

    pid = fork();
    if (pid == 0) {
        if (setgid(1000) != 0 || setuid(1000) != 0)
            out("setuid failed: %s", errname(errno));
        show("uid 1000: chroot jail", chroot("jail"));
        show("uid 1000: chroot mode 000 dir", chroot("locked"));
        _exit(0);
    }
    reap("uid 1000 child", pid);
    cat("parent still sees outside", "outside");
    pwd("parent cwd");
    return 0;
}
