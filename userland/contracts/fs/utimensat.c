/* utimensat/futimens: explicit times are stored exactly, UTIME_OMIT keeps
 * a field, UTIME_NOW sets the current time, AT_SYMLINK_NOFOLLOW touches the
 * link itself; bad nanoseconds are EINVAL. */
#include "common.h"

static void times_of(const char *label, const char *path, int nofollow)
{
    struct stat s;
    fstatat(AT_FDCWD, path, &s, nofollow ? AT_SYMLINK_NOFOLLOW : 0);
    out("%s: atime=%ld.%09ld mtime=%ld.%09ld", label, (long)s.st_atim.tv_sec, s.st_atim.tv_nsec,
        (long)s.st_mtim.tv_sec, s.st_mtim.tv_nsec);
}

int main(void)
{
    put_file("f", "x");
    struct timespec t[2] = {{1000, 500}, {2000000000, 999999999}};
    check("utimensat explicit", utimensat(AT_FDCWD, "f", t, 0));
    times_of("f", "f", 0);
    struct timespec o[2] = {{5, UTIME_OMIT}, {3000, 0}};
    check("UTIME_OMIT atime", utimensat(AT_FDCWD, "f", o, 0));
    times_of("f", "f", 0);
    struct timespec n[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
    check("UTIME_NOW atime", utimensat(AT_FDCWD, "f", n, 0));
    struct stat s;
    stat("f", &s);
    out("atime is now (after 2020): %s, mtime kept: %ld", yesno(s.st_atim.tv_sec > 1577836800), (long)s.st_mtim.tv_sec);
    check("NULL times = now", utimensat(AT_FDCWD, "f", NULL, 0));
    stat("f", &s);
    out("mtime is now: %s", yesno(s.st_mtim.tv_sec > 1577836800));
    int fd = open("f", O_RDONLY);
    struct timespec t2[2] = {{7, 0}, {8, 0}};
    check("futimens", futimens(fd, t2));
    times_of("f", "f", 0);
    symlink("f", "ln");
    struct timespec t3[2] = {{11, 0}, {12, 0}};
    check("AT_SYMLINK_NOFOLLOW", utimensat(AT_FDCWD, "ln", t3, AT_SYMLINK_NOFOLLOW));
    times_of("link", "ln", 1);
    times_of("target", "f", 0);
    struct timespec bad[2] = {{0, 1000000000}, {0, 0}};
    check("tv_nsec 1e9", utimensat(AT_FDCWD, "f", bad, 0));
    check("missing file", utimensat(AT_FDCWD, "none", t, 0));
    check("bad flags", utimensat(AT_FDCWD, "f", t, 0x4000));
    /* Writing updates mtime. */
    utimensat(AT_FDCWD, "f", t, 0);
    int w = open("f", O_WRONLY);
    write(w, "y", 1);
    stat("f", &s);
    out("write updates mtime: %s", yesno(s.st_mtim.tv_sec != 2000000000));
    return 0;
}
