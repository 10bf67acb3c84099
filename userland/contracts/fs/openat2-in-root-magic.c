/* openat2 RESOLVE_IN_ROOT through /proc's magic links (Linux's
 * nd_jump_link: not safe in a scoped walk): with "/" as the root, the
 * ordinary /proc/self link is followed, but /proc/self/fd/N, cwd, root,
 * exe and /proc/thread-self/fd/N are EXDEV wherever they are met, last
 * or in the middle of the path; RESOLVE_NO_MAGICLINKS makes them ELOOP
 * first, RESOLVE_NO_SYMLINKS stops at /proc/self (ELOOP); a trailing one
 * not followed (O_PATH | O_NOFOLLOW) opens the link itself, O_NOFOLLOW
 * alone is ELOOP. With the scratch directory as the root, /proc is not
 * there at all. */
#include "common.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define NO_MAGICLINKS 0x02
#define NO_SYMLINKS 0x04
#define IN_ROOT 0x10

struct how { unsigned long long flags, mode, resolve; };

static long o2(int dirfd, const char *path, unsigned long long flags, unsigned long long resolve)
{
    struct how h = { flags, 0, resolve };
    return syscall(SYS_openat2, dirfd, path, &h, sizeof h);
}

/* "label: ok (file type)" or "label: ENAME". */
static void show_open(const char *label, long fd)
{
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    struct stat st;
    fstat(fd, &st);
    out("%s: ok (%s)", label, ftype(st.st_mode));
    close(fd);
}

int main(void)
{
    put_file("f", "data");
    int file = open("f", O_RDONLY);
    int dir = open(".", O_RDONLY | O_DIRECTORY);
    int root = open("/", O_PATH | O_DIRECTORY);
    int proc = open("/proc", O_PATH | O_DIRECTORY);
    char path[96];

    show_open("/proc/self/status", o2(root, "/proc/self/status", O_RDONLY, IN_ROOT));
    snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    show_open("/proc/self/fd/FILE", o2(root, path, O_RDONLY, IN_ROOT));
    show_open("proc/self/fd/FILE (relative)", o2(root, path + 1, O_RDONLY, IN_ROOT));
    show_open("/proc/self/fd/FILE NO_MAGICLINKS", o2(root, path, O_RDONLY, IN_ROOT | NO_MAGICLINKS));
    show_open("/proc/self/fd/FILE NO_SYMLINKS", o2(root, path, O_RDONLY, IN_ROOT | NO_SYMLINKS));
    show_open("/proc/self/fd/FILE O_PATH|O_NOFOLLOW", o2(root, path, O_PATH | O_NOFOLLOW, IN_ROOT));
    show_open("/proc/self/fd/FILE O_NOFOLLOW", o2(root, path, O_RDONLY | O_NOFOLLOW, IN_ROOT));
    show_open("/proc/self/fd/FILE without IN_ROOT", o2(root, path, O_RDONLY, 0));
    snprintf(path, sizeof path, "/proc/self/fd/%d/f", dir);
    show_open("/proc/self/fd/DIR/f", o2(root, path, O_RDONLY, IN_ROOT));
    show_open("/proc/self/fd/DIR/f without IN_ROOT", o2(root, path, O_RDONLY, 0));
    show_open("/proc/self/cwd/f", o2(root, "/proc/self/cwd/f", O_RDONLY, IN_ROOT));
    show_open("/proc/self/root", o2(root, "/proc/self/root", O_RDONLY | O_DIRECTORY, IN_ROOT));
    show_open("/proc/self/exe", o2(root, "/proc/self/exe", O_RDONLY, IN_ROOT));
    snprintf(path, sizeof path, "/proc/thread-self/fd/%d", file);
    show_open("/proc/thread-self/fd/FILE", o2(root, path, O_RDONLY, IN_ROOT));
    snprintf(path, sizeof path, "self/fd/%d", file);
    show_open("/proc as the root: self/fd/FILE", o2(proc, path, O_RDONLY, IN_ROOT));
    snprintf(path, sizeof path, "/self/fd/%d", file);
    show_open("/proc as the root: /self/fd/FILE", o2(proc, path, O_RDONLY, IN_ROOT));
    snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    show_open("the scratch directory as the root", o2(dir, path, O_RDONLY, IN_ROOT));
    show_open("AT_FDCWD as the root", o2(AT_FDCWD, path, O_RDONLY, IN_ROOT));
    return 0;
}
