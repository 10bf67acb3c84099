/* chmod/fchmod/fchmodat and chown/fchown/lchown as root: the new values
 * show in stat; -1 leaves an id unchanged; chown of a setuid file by root
 * clears the setuid bit. */
#include "common.h"

static void st(const char *label, const char *path, int follow)
{
    struct stat s;
    if ((follow ? stat(path, &s) : lstat(path, &s)) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: mode=%o uid=%d gid=%d", label, s.st_mode & 07777, s.st_uid, s.st_gid);
}

int main(void)
{
    put_file("f", "x");
    check("chmod 0640", chmod("f", 0640));
    st("f", "f", 1);
    int fd = open("f", O_RDONLY);
    check("fchmod 0404", fchmod(fd, 0404));
    st("f", "f", 1);
    check("fchmodat 7755", fchmodat(AT_FDCWD, "f", 07755, 0));
    st("f", "f", 1);
    check("chown 1000:2000", chown("f", 1000, 2000));
    st("f (setuid/setgid cleared by chown)", "f", 1);
    chmod("f", 0755);
    check("chown -1:3000", chown("f", -1, 3000));
    st("f", "f", 1);
    check("fchown 7:-1", fchown(fd, 7, -1));
    st("f", "f", 1);
    symlink("f", "ln");
    check("lchown the link 5:6", lchown("ln", 5, 6));
    st("link", "ln", 0);
    st("target", "f", 1);
    check("chown through link 0:0", chown("ln", 0, 0));
    st("target", "f", 1);
    show("chmod missing", chmod("none", 0644));
    show("fchmod bad fd", fchmod(1000, 0644));
    show("fchmodat AT_SYMLINK_NOFOLLOW", fchmodat(AT_FDCWD, "ln", 0644, AT_SYMLINK_NOFOLLOW));
    mkdir("d", 0700);
    check("chmod dir 1777", chmod("d", 01777));
    st("d", "d", 1);
    return 0;
}
