/* utime, utimes, futimesat: explicit times are stored (whole seconds for
 * utime, microseconds for the others), NULL sets the current time, a
 * microsecond count outside 0..999999 is EINVAL (before the path is
 * looked at), futimesat with a NULL path sets the times of dirfd itself,
 * bad pointers are EFAULT; another user may set "now" with write access
 * but not explicit times (EPERM), nor "now" without it (EACCES). */
#include "common.h"
#include <utime.h>
#include <sys/time.h>

static void times_of(const char *label, const char *path)
{
    struct stat s;
    stat(path, &s);
    out("%s: atime=%ld.%09ld mtime=%ld.%09ld", label, (long)s.st_atim.tv_sec, s.st_atim.tv_nsec,
        (long)s.st_mtim.tv_sec, s.st_mtim.tv_nsec);
}

static void is_now(const char *label, const char *path)
{
    struct stat s;
    stat(path, &s);
    out("%s: times are now (after 2020): %s", label, yesno(s.st_atim.tv_sec > 1577836800 && s.st_mtim.tv_sec > 1577836800));
}

int main(void)
{
    put_file("f", "x");
    struct utimbuf ub = { 1000, 2000 };
    check("utime", syscall(SYS_utime, "f", &ub));
    times_of("after utime", "f");
    check("utime NULL", syscall(SYS_utime, "f", NULL));
    is_now("after utime NULL", "f");
    check("utime missing file", syscall(SYS_utime, "none", &ub));
    check("utime bad times", syscall(SYS_utime, "f", (void *)8));
    check("utime NULL path", syscall(SYS_utime, NULL, &ub));

    struct timeval tv[2] = { { 3000, 123456 }, { 4000, 999999 } };
    check("utimes", syscall(SYS_utimes, "f", tv));
    times_of("after utimes", "f");
    check("utimes NULL", syscall(SYS_utimes, "f", NULL));
    is_now("after utimes NULL", "f");
    struct timeval big[2] = { { 1, 1000000 }, { 2, 0 } };
    check("utimes usec 1000000", syscall(SYS_utimes, "f", big));
    check("utimes usec 1000000, missing file", syscall(SYS_utimes, "none", big));
    struct timeval neg[2] = { { 1, 0 }, { 2, -1 } };
    check("utimes usec -1", syscall(SYS_utimes, "f", neg));
    check("utimes bad times", syscall(SYS_utimes, "f", (void *)8));

    mkdir("d", 0755);
    put_file("d/g", "y");
    int dir = open("d", O_RDONLY | O_DIRECTORY);
    struct timeval tv2[2] = { { 5000, 1 }, { 6000, 2 } };
    check("futimesat relative to dirfd", syscall(SYS_futimesat, dir, "g", tv2));
    times_of("d/g", "d/g");
    check("futimesat NULL path (the dirfd itself)", syscall(SYS_futimesat, dir, NULL, tv2));
    times_of("d", "d");
    check("futimesat NULL path, AT_FDCWD", syscall(SYS_futimesat, AT_FDCWD, NULL, tv2));
    check("futimesat bad dirfd", syscall(SYS_futimesat, 999, "g", tv2));
    check("futimesat file as dirfd", syscall(SYS_futimesat, open("f", O_RDONLY), "g", tv2));
    symlink("f", "ln");
    check("utimes through a symlink", syscall(SYS_utimes, "ln", tv2));
    times_of("f (the target)", "f");

    /* Another user: "now" needs write access, explicit times the owner. */
    chmod("f", 0666);
    put_file("ro", "z");
    chmod("ro", 0644);
    pid_t child = fork();
    if (child == 0) {
        if (setresuid(65534, 65534, 65534) != 0)
            _exit(9);
        check("other user, utimes NULL, writable", syscall(SYS_utimes, "f", NULL));
        check("other user, utimes explicit, writable", syscall(SYS_utimes, "f", tv));
        check("other user, utime NULL, not writable", syscall(SYS_utime, "ro", NULL));
        check("other user, utime explicit", syscall(SYS_utime, "ro", &ub));
        _exit(0);
    }
    reap("other user", child);
    return 0;
}
