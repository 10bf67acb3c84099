/* Extended attributes on a tmpfs file (the scratch directory), where
 * Linux 6.1 has no handler for user.* names: get/set/remove fail with
 * EOPNOTSUPP, listing gives an empty list. The checks before that are the
 * same everywhere: the path lookup (ENOENT, and the l* variants not
 * following a dangling symlink), the fd (EBADF), the name (ERANGE when
 * empty or longer than 255 bytes, EFAULT), setxattr's flags (EINVAL) and
 * size (E2BIG). */
#include "common.h"
#include <sys/xattr.h>

int main(void)
{
    char buf[64];
    char longname[300];
    put_file("f", "data\n");
    symlink("missing", "dangling");
    int fd = open("f", O_RDONLY);

    show("getxattr user.x", getxattr("f", "user.x", buf, sizeof buf));
    show("lgetxattr user.x", lgetxattr("f", "user.x", buf, sizeof buf));
    show("fgetxattr user.x", fgetxattr(fd, "user.x", buf, sizeof buf));
    show("setxattr user.x", setxattr("f", "user.x", "v", 1, 0));
    show("fsetxattr user.x", fsetxattr(fd, "user.x", "v", 1, XATTR_CREATE));
    show("removexattr user.x", removexattr("f", "user.x"));
    show("fremovexattr user.x", fremovexattr(fd, "user.x"));
    show("listxattr", listxattr("f", buf, sizeof buf));
    show("listxattr size 0", listxattr("f", NULL, 0));
    show("llistxattr", llistxattr("f", buf, sizeof buf));
    show("flistxattr", flistxattr(fd, buf, sizeof buf));
    show("listxattr of a directory", listxattr(".", buf, sizeof buf));

    show("getxattr missing file", getxattr("nope", "user.x", buf, sizeof buf));
    show("getxattr through dangling symlink", getxattr("dangling", "user.x", buf, sizeof buf));
    show("listxattr through dangling symlink", listxattr("dangling", buf, sizeof buf));
    show("llistxattr of dangling symlink", llistxattr("dangling", buf, sizeof buf));
    show("fgetxattr bad fd", fgetxattr(1000, "user.x", buf, sizeof buf));
    show("flistxattr bad fd", flistxattr(1000, buf, sizeof buf));
    show("getxattr empty name", getxattr("f", "", buf, sizeof buf));
    memset(longname, 'a', sizeof longname);
    memcpy(longname, "user.", 5);
    longname[sizeof longname - 1] = 0;
    show("getxattr 299-byte name", getxattr("f", longname, buf, sizeof buf));
    rcheck("getxattr bad name pointer", rawsys(SYS_getxattr, (long)"f", 16, (long)buf, sizeof buf, 0, 0));
    rcheck("getxattr bad path pointer", rawsys(SYS_getxattr, 16, (long)"user.x", (long)buf, sizeof buf, 0, 0));
    show("setxattr bad flags", setxattr("f", "user.x", "v", 1, 4));
    show("setxattr 65537 bytes", setxattr("f", "user.x", "v", 65537, 0));
    return 0;
}
