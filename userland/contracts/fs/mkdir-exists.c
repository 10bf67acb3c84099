/* mkdir of a name that exists is EEXIST before anything else is checked:
 * in a synthetic directory (/proc, where nothing can be made), on a
 * read-only mount, and in a directory the caller may not write. */
#include <sys/mount.h>
#include "common.h"

int main(void)
{
    check("mkdir /proc/self", mkdir("/proc/self", 0755));
    check("mkdir /proc/sys/", mkdir("/proc/sys/", 0755));
    check("mkdir /proc/new", mkdir("/proc/new", 0755));
    mkdir("t", 0755);
    check("mount tmpfs", mount("none", "t", "tmpfs", 0, NULL));
    check("mkdir t/d", mkdir("t/d", 0755));
    check("remount read-only", mount("none", "t", NULL, MS_REMOUNT | MS_RDONLY, NULL));
    check("mkdir t/d on read-only", mkdir("t/d", 0755));
    check("mkdir t/e on read-only", mkdir("t/e", 0755));
    check("remount read-write", mount("none", "t", NULL, MS_REMOUNT, NULL));
    check("chmod t 0555", chmod("t", 0555));
    pid_t child = fork();
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(1);
        check("nobody: mkdir t/d", mkdir("t/d", 0755));
        check("nobody: mkdir t/e", mkdir("t/e", 0755));
        _exit(0);
    }
    reap("child", child);
    umount("t");
    return 0;
}
