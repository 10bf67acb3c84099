/* openat and the *at family: paths relative to a directory fd, AT_FDCWD,
 * absolute paths ignore the fd, errors for a file or bad fd as dirfd. */
#include "common.h"

int main(void)
{
    mkdir("d", 0755);
    mkdir("d/sub", 0755);
    put_file("d/sub/f", "in sub");
    put_file("here", "in cwd");
    int dfd = open("d", O_RDONLY | O_DIRECTORY);
    int fd = openat(dfd, "sub/f", O_RDONLY);
    char buf[32] = {0};
    read(fd, buf, sizeof buf - 1);
    out("openat(dirfd, sub/f): %s", buf);
    memset(buf, 0, sizeof buf);
    fd = openat(AT_FDCWD, "here", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    out("openat(AT_FDCWD, here): %s", buf);
    char abs[512];
    getcwd(abs, sizeof abs);
    strcat(abs, "/here");
    show("absolute path with a bad dirfd is fine", openat(1000000, abs, O_RDONLY) >= 0 ? 0 : -1);
    int file = open("here", O_RDONLY);
    show("dirfd is a file", openat(file, "x", O_RDONLY));
    show("dirfd is bad", openat(1000000, "x", O_RDONLY));
    show("dirfd is -1", openat(-1, "x", O_RDONLY));
    check("mkdirat", mkdirat(dfd, "made", 0755));
    struct stat st;
    check("fstatat", fstatat(dfd, "made", &st, 0));
    out("type: %s", ftype(st.st_mode));
    check("renameat across dirfds", renameat(dfd, "made", AT_FDCWD, "moved"));
    check("unlinkat AT_REMOVEDIR", unlinkat(AT_FDCWD, "moved", AT_REMOVEDIR));
    check("unlinkat file with AT_REMOVEDIR", unlinkat(dfd, "sub/f", AT_REMOVEDIR));
    check("unlinkat dir without flag", unlinkat(dfd, "sub", 0));
    check("unlinkat bad flag", unlinkat(dfd, "sub/f", 0x1));
    check("symlinkat + readlinkat", symlinkat("target", dfd, "ln"));
    char lb[32] = {0};
    readlinkat(dfd, "ln", lb, sizeof lb);
    out("readlinkat: %s", lb);
    check("linkat", linkat(dfd, "sub/f", AT_FDCWD, "hard", 0));
    stat("hard", &st);
    out("nlink after linkat: %ld", (long)st.st_nlink);
    /* dirfd keeps pointing at the directory after it is renamed. */
    rename("d", "d2");
    fd = openat(dfd, "sub/f", O_RDONLY);
    out("openat after renaming the directory: %s", fd >= 0 ? "ok" : errname(errno));
    return 0;
}
