/* Unmounting a file system with watches on it: it is not busy because of
 * them; each watch gets IN_UNMOUNT (with IN_ISDIR for a directory) and
 * then IN_IGNORED, and its descriptor is gone (rm_watch: EINVAL). */
#include <sys/mount.h>
#include "inotify.h"

int main(void)
{
    mkdir("m", 0755);
    if (mount("none", "m", "tmpfs", 0, NULL) < 0) {
        out("mount: %s", errname(errno));
        return 0;
    }
    put_file("m/file", "x");
    int a = inotify_init1(IN_NONBLOCK);
    int b = inotify_init1(IN_NONBLOCK);
    int wa = inotify_add_watch(a, "m", IN_CREATE);
    int wb = inotify_add_watch(b, "m/file", IN_MODIFY);
    out("wds %d %d", wa, wb);
    check("umount", umount("m"));
    dump("root watch", a);
    dump("file watch", b);
    check("rm_watch after", inotify_rm_watch(a, wa));
    put_file("m/file2", "y");
    dump("after, on the directory underneath", a);
    return 0;
}
