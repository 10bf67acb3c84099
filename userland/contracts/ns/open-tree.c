/* open_tree as Linux 6.1: without OPEN_TREE_CLONE an O_PATH descriptor of
 * the path; with it a detached private copy of the mount at the path (its
 * submounts too with AT_RECURSIVE) that move_mount attaches elsewhere;
 * unbindable mounts are refused; the flag, path and privilege errors. */
#include "../common.h"
#include "newmount.h"
#include <sys/mount.h>

static const char *there(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? "exists" : errname(errno);
}

int main(void)
{
    mkdir("ot", 0755);
    check("mount tmpfs on ot", mount("none", "ot", "tmpfs", 0, NULL));
    check("make ot private", mount(NULL, "ot", NULL, MS_PRIVATE, NULL));
    mkdir("ot/src", 0755);
    mkdir("ot/src/sub", 0755);
    mkdir("ot/dst", 0755);
    mkdir("ot/dst2", 0755);
    mkdir("ot/un", 0755);
    put_file("ot/src/f", "f");
    check("mount tmpfs on ot/src/sub", mount("none", "ot/src/sub", "tmpfs", 0, NULL));
    put_file("ot/src/sub/g", "g");
    rcheck("open_tree flags 2", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", 2, 0, 0, 0));
    rcheck("open_tree AT_RECURSIVE without clone", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", AT_RECURSIVE, 0, 0, 0));
    rcheck("open_tree missing path", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/none", OPEN_TREE_CLONE, 0, 0, 0));
    rcheck("open_tree empty path", rawsys(NR_open_tree, AT_FDCWD, (long)"", OPEN_TREE_CLONE, 0, 0, 0));
    rcheck("open_tree bad path pointer", rawsys(NR_open_tree, AT_FDCWD, 8, OPEN_TREE_CLONE, 0, 0, 0));
    int plain = rcheck("open_tree ot/src", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", OPEN_TREE_CLOEXEC, 0, 0, 0));
    out("plain: O_PATH %s, FD_CLOEXEC %s", yesno(fcntl(plain, F_GETFL) & O_PATH), yesno(fcntl(plain, F_GETFD) & FD_CLOEXEC));
    char c;
    out("read of the plain descriptor: %s", read(plain, &c, 1) < 0 ? errname(errno) : "ok");
    rcheck("move_mount of a directory that is no mount", rawsys(NR_move_mount, plain, (long)"", AT_FDCWD, (long)"ot/dst", MOVE_MOUNT_F_EMPTY_PATH, 0));
    int fd = rcheck("open_tree ot/src clone", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC, 0, 0, 0));
    out("clone: O_PATH %s", yesno(fcntl(fd, F_GETFL) & O_PATH));
    struct stat sb;
    out("fstatat(clone, \"f\"): %s", fstatat(fd, "f", &sb, 0) == 0 ? "exists" : errname(errno));
    rcheck("move_mount the clone to ot/dst", rawsys(NR_move_mount, fd, (long)"", AT_FDCWD, (long)"ot/dst", MOVE_MOUNT_F_EMPTY_PATH, 0));
    out("ot/dst/f: %s", there("ot/dst/f"));
    out("ot/dst/sub/g: %s", there("ot/dst/sub/g"));
    put_file("ot/dst/new", "n");
    out("ot/src/new (same file system): %s", there("ot/src/new"));
    int rfd = rcheck("open_tree ot/src clone recursive", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", OPEN_TREE_CLONE | AT_RECURSIVE, 0, 0, 0));
    rcheck("move_mount it to ot/dst2", rawsys(NR_move_mount, rfd, (long)"", AT_FDCWD, (long)"ot/dst2", MOVE_MOUNT_F_EMPTY_PATH, 0));
    out("ot/dst2/sub/g: %s", there("ot/dst2/sub/g"));
    put_file("ot/dst2/sub/h", "h");
    out("ot/src/sub/h (same tmpfs): %s", there("ot/src/sub/h"));
    int sfd = rcheck("open_tree ot/src/sub clone", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src/sub", OPEN_TREE_CLONE, 0, 0, 0));
    close(sfd);
    check("make ot/src/sub unbindable", mount(NULL, "ot/src/sub", NULL, MS_UNBINDABLE, NULL));
    rcheck("open_tree of an unbindable mount", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src/sub", OPEN_TREE_CLONE, 0, 0, 0));
    int dfd = open("ot", O_PATH | O_DIRECTORY);
    int e = rcheck("open_tree from a dirfd with AT_EMPTY_PATH", rawsys(NR_open_tree, dfd, (long)"", OPEN_TREE_CLONE | AT_EMPTY_PATH, 0, 0, 0));
    rcheck("move_mount it by dirfd to un", rawsys(NR_move_mount, e, (long)"", dfd, (long)"un", MOVE_MOUNT_F_EMPTY_PATH, 0));
    out("ot/un/src/f: %s", there("ot/un/src/f"));
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        rcheck("uid 1000: open_tree clone", rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", OPEN_TREE_CLONE, 0, 0, 0));
        int q = rawsys(NR_open_tree, AT_FDCWD, (long)"ot/src", 0, 0, 0, 0);
        out("uid 1000: open_tree without clone: %s", q < 0 ? errname(-q) : "ok");
        _exit(0);
    }
    reap("child", pid);
    /* The descriptors hold their mounts busy until closed. */
    close(plain);
    close(fd);
    close(rfd);
    close(e);
    close(dfd);
    check("umount ot/un", umount("ot/un"));
    check("umount ot/dst2/sub", umount("ot/dst2/sub"));
    check("umount ot/dst2", umount("ot/dst2"));
    check("umount ot/dst", umount("ot/dst"));
    check("umount ot/src/sub", umount("ot/src/sub"));
    check("umount ot", umount("ot"));
    return 0;
}
