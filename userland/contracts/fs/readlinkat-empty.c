/* readlinkat(fd, "", ...) reads the symlink an O_PATH|O_NOFOLLOW
 * descriptor refers to (systemd-tmpfiles reads links that way: Kevlar
 * answered ENOENT and every boot logged "readlinkat(/etc/mtab) failed");
 * an empty path naming anything else is ENOENT, a bad descriptor EBADF. */
#include "../common.h"

static void show_link(const char *label, int dirfd)
{
    char buf[64];
    ssize_t n = readlinkat(dirfd, "", buf, sizeof buf);
    if (n < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %zd %.*s", label, n, (int)n, buf);
}

int main(void)
{
    unlink("rl-link");
    unlink("rl-file");
    check("symlink", symlink("some/target", "rl-link"));
    int f = open("rl-file", O_CREAT | O_WRONLY, 0644);
    close(f);
    int l = open("rl-link", O_PATH | O_NOFOLLOW);
    show_link("O_PATH symlink", l);
    char small[4];
    ssize_t n = readlinkat(l, "", small, sizeof small);
    out("short buffer: %zd %.*s", n, n > 0 ? (int)n : 0, small);
    out("zero size: %s", readlinkat(l, "", small, 0) < 0 ? errname(errno) : "ok");
    int r = open("rl-file", O_PATH);
    show_link("O_PATH regular file", r);
    int d = open(".", O_RDONLY | O_DIRECTORY);
    show_link("directory", d);
    show_link("AT_FDCWD", AT_FDCWD);
    show_link("bad fd", 12345);
    out("by name: %s", readlinkat(AT_FDCWD, "rl-link", small, sizeof small) == 4 ? "4" : errname(errno));
    out("by name, regular file: %s", readlinkat(AT_FDCWD, "rl-file", small, sizeof small) < 0 ? errname(errno) : "ok");
    unlink("rl-link");
    unlink("rl-file");
    return 0;
}
