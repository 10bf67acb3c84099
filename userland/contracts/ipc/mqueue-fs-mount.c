/* The mqueue file system: mount -t mqueue, statfs's f_type
 * (MQUEUE_MAGIC), the /proc/mounts line, the root directory's mode
 * (sticky, world-writable), link count and owner, and any mount option
 * refused with EINVAL. */
#include "ipc.h"
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#define DIR_ "mqfs-mount"

int main(void)
{
    mkdir(DIR_, 0755);
    show("mount with an option", mount("none", DIR_, "mqueue", 0, "size=10"));
    if (check("mount", mount("none", DIR_, "mqueue", 0, NULL)) < 0)
        return 1;
    struct statfs sf;
    if (check("statfs", statfs(DIR_, &sf)) == 0)
        out("f_type %#lx namelen %ld bsize %ld", (unsigned long)sf.f_type, (long)sf.f_namelen, (long)sf.f_bsize);
    struct stat st;
    if (check("stat root", stat(DIR_, &st)) == 0)
        out("root: mode %o nlink %lu uid %u gid %u", st.st_mode, (unsigned long)st.st_nlink, st.st_uid, st.st_gid);
    FILE *f = fopen("/proc/self/mounts", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char src[128], path[256], type[64], opts[256];
        if (sscanf(line, "%127s %255s %63s %255s", src, path, type, opts) == 4 && strcmp(type, "mqueue") == 0) {
            const char *base = strrchr(path, '/');
            out("mounts: %s .../%s %s %s", src, base ? base + 1 : path, type, opts);
        }
    }
    if (f)
        fclose(f);
    check("umount", umount(DIR_));
    rmdir(DIR_);
    return 0;
}
