/* openat2's RESOLVE_* flags: NO_SYMLINKS refuses any symlink (ELOOP),
 * NO_MAGICLINKS the /proc/PID/fd links (ELOOP), NO_XDEV any mount
 * crossing (EXDEV), BENEATH any escape from the directory (absolute
 * paths and symlinks, ".." above it, magic links: EXDEV), IN_ROOT takes
 * the directory as the root (absolute symlinks and ".." stay in it). */
#include "common.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define NO_XDEV 0x01
#define NO_MAGICLINKS 0x02
#define NO_SYMLINKS 0x04
#define BENEATH 0x08
#define IN_ROOT 0x10

struct how { unsigned long long flags, mode, resolve; };

static long o2(int dirfd, const char *path, unsigned long long flags, unsigned long long resolve)
{
    struct how h = { flags, 0, resolve };
    return syscall(SYS_openat2, dirfd, path, &h, sizeof h);
}

/* "label: ok (contents)" or "label: ENAME". */
static void show_open(const char *label, long fd)
{
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    char buf[32] = { 0 };
    read(fd, buf, sizeof buf - 1);
    out("%s: ok (%s)", label, buf);
    close(fd);
}

int main(void)
{
    mkdir("root", 0755);
    mkdir("root/sub", 0755);
    put_file("root/file", "in-root");
    put_file("root/sub/file", "in-sub");
    put_file("outside", "outside");
    symlink("file", "root/rel-link");
    symlink("/file", "root/abs-link");
    symlink("../outside", "root/up-link");
    symlink("sub", "root/dir-link");
    int root = open("root", O_RDONLY | O_DIRECTORY);

    show_open("plain", o2(root, "file", O_RDONLY, 0));
    show_open("NO_SYMLINKS plain file", o2(root, "file", O_RDONLY, NO_SYMLINKS));
    show_open("NO_SYMLINKS through a link", o2(root, "rel-link", O_RDONLY, NO_SYMLINKS));
    show_open("NO_SYMLINKS link in the middle", o2(root, "dir-link/file", O_RDONLY, NO_SYMLINKS));
    long fd = o2(root, "rel-link", O_PATH | O_NOFOLLOW, NO_SYMLINKS);
    out("NO_SYMLINKS O_PATH|O_NOFOLLOW on the link: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    show_open("NO_MAGICLINKS ordinary link", o2(root, "rel-link", O_RDONLY, NO_MAGICLINKS));
    char magic[64];
    int file = open("outside", O_RDONLY);
    snprintf(magic, sizeof magic, "/proc/self/fd/%d", file);
    show_open("magic link", o2(AT_FDCWD, magic, O_RDONLY, 0));
    show_open("NO_MAGICLINKS magic link", o2(AT_FDCWD, magic, O_RDONLY, NO_MAGICLINKS));
    show_open("NO_SYMLINKS magic link", o2(AT_FDCWD, magic, O_RDONLY, NO_SYMLINKS));

    show_open("NO_XDEV same mount", o2(root, "sub/file", O_RDONLY, NO_XDEV));
    fd = o2(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, NO_XDEV);
    out("NO_XDEV absolute /: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    fd = o2(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY, NO_XDEV);
    out("NO_XDEV into /proc: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    fd = o2(AT_FDCWD, "/proc/self", O_RDONLY | O_DIRECTORY, NO_XDEV);
    out("NO_XDEV /proc/self: %s", fd >= 0 ? "ok" : errname(errno));
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    fd = o2(proc, "..", O_RDONLY | O_DIRECTORY, NO_XDEV);
    out("NO_XDEV .. out of /proc: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    fd = o2(proc, "..", O_RDONLY | O_DIRECTORY, 0);
    out(".. out of /proc: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);

    show_open("BENEATH inside", o2(root, "sub/file", O_RDONLY, BENEATH));
    show_open("BENEATH sub/../file", o2(root, "sub/../file", O_RDONLY, BENEATH));
    show_open("BENEATH ../outside", o2(root, "../outside", O_RDONLY, BENEATH));
    show_open("BENEATH ../root/file", o2(root, "../root/file", O_RDONLY, BENEATH));
    show_open("BENEATH absolute path", o2(root, "/proc/version", O_RDONLY, BENEATH));
    show_open("BENEATH relative link", o2(root, "rel-link", O_RDONLY, BENEATH));
    show_open("BENEATH absolute link", o2(root, "abs-link", O_RDONLY, BENEATH));
    show_open("BENEATH link upward", o2(root, "up-link", O_RDONLY, BENEATH));
    int fds = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
    char num[16];
    snprintf(num, sizeof num, "%d", file);
    show_open("magic link from /proc/self/fd", o2(fds, num, O_RDONLY, 0));
    show_open("BENEATH magic link", o2(fds, num, O_RDONLY, BENEATH));

    show_open("IN_ROOT absolute path", o2(root, "/file", O_RDONLY, IN_ROOT));
    show_open("IN_ROOT absolute link", o2(root, "abs-link", O_RDONLY, IN_ROOT));
    show_open("IN_ROOT ../../file", o2(root, "../../file", O_RDONLY, IN_ROOT));
    show_open("IN_ROOT link upward", o2(root, "up-link", O_RDONLY, IN_ROOT));
    show_open("IN_ROOT /sub/../../sub/file", o2(root, "/sub/../../sub/file", O_RDONLY, IN_ROOT));
    show_open("IN_ROOT magic link", o2(fds, num, O_RDONLY, IN_ROOT));
    show_open("without IN_ROOT absolute link", o2(root, "abs-link", O_RDONLY, 0));

    /* O_CREAT under BENEATH: creating inside is fine, outside is not. */
    fd = o2(root, "sub/new", O_RDWR | O_CREAT, BENEATH);
    out("BENEATH create inside: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    struct how h = { O_RDWR | O_CREAT, 0600, BENEATH };
    out("BENEATH create outside: %s", syscall(SYS_openat2, root, "../new", &h, sizeof h) >= 0 ? "ok" : errname(errno));
    out("outside file made: %s", yesno(access("new", F_OK) == 0));
    return 0;
}
