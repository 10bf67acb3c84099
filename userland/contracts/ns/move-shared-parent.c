/* MS_MOVE (and move_mount(2) of an attached mount) as Linux 6.1's
 * do_move_mount checks it: a mount whose parent mount is shared cannot
 * move (EINVAL), while one under a private parent can, into a shared
 * mount too; a tree holding an unbindable mount cannot move under a
 * shared mount (EINVAL); a mount cannot move into itself or below itself
 * (ELOOP). Each mount holds a marker file showing where it is. */
#define _GNU_SOURCE
#include <sys/mount.h>
#include "common.h"
#include "newmount.h"

static void mark(const char *dir, const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    close(open(path, O_CREAT | O_WRONLY, 0644));
}

static void where(const char *marker)
{
    const char *places[] = {"base/a", "base/b", "base/c", "priv/x", "priv/y", "u", "priv", "priv/in"};
    char found[256] = "";
    for (unsigned i = 0; i < sizeof places / sizeof *places; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", places[i], marker);
        if (access(path, F_OK) == 0) {
            strcat(found, " ");
            strcat(found, places[i]);
        }
    }
    out("%s is in:%s", marker, found[0] ? found : " nowhere");
}

static void move(const char *from, const char *to)
{
    char label[128];
    snprintf(label, sizeof label, "MS_MOVE %s -> %s", from, to);
    check(label, mount(from, to, NULL, MS_MOVE, NULL));
}

int main(void)
{
    mkdir("base", 0755);
    check("mount tmpfs base", mount("none", "base", "tmpfs", 0, ""));
    check("make base shared", mount(NULL, "base", NULL, MS_SHARED, NULL));
    mkdir("base/a", 0755);
    mkdir("base/b", 0755);
    mkdir("base/c", 0755);
    check("mount tmpfs base/a", mount("none", "base/a", "tmpfs", 0, ""));
    mark("base/a", "A");

    /* Its parent is shared: it stays. */
    move("base/a", "base/b");
    show("move_mount base/a -> base/b", syscall(NR_move_mount, AT_FDCWD, "base/a", AT_FDCWD, "base/b", 0));
    where("A");

    /* Under a private parent it moves, into the shared mount too. */
    mkdir("priv", 0755);
    check("mount tmpfs priv", mount("none", "priv", "tmpfs", 0, ""));
    mark("priv", "P");
    mkdir("priv/x", 0755);
    mkdir("priv/y", 0755);
    mkdir("priv/in", 0755);
    check("mount tmpfs priv/x", mount("none", "priv/x", "tmpfs", 0, ""));
    mark("priv/x", "X");
    move("priv/x", "priv/y");
    where("X");
    move("priv/y", "base/b");
    where("X");
    /* Now in base, which is shared: it stays there. */
    move("base/b", "priv/x");
    where("X");

    /* Into itself or below itself. */
    move("priv", "priv/in");
    move("priv", "priv");
    where("P");

    /* A tree holding an unbindable mount, under a shared mount. */
    mkdir("u", 0755);
    check("mount tmpfs u", mount("none", "u", "tmpfs", 0, ""));
    mark("u", "U");
    check("make u unbindable", mount(NULL, "u", NULL, MS_UNBINDABLE, NULL));
    move("u", "base/c");
    move("u", "priv/x");
    where("U");

    /* base made private: its mounts move again. */
    check("make base private", mount(NULL, "base", NULL, MS_PRIVATE, NULL));
    move("base/a", "base/c");
    where("A");

    umount2("priv/x", MNT_DETACH);
    umount2("base/c", MNT_DETACH);
    umount2("base/b", MNT_DETACH);
    umount2("priv", MNT_DETACH);
    umount2("base", MNT_DETACH);
    return 0;
}
