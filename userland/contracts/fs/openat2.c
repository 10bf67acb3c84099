/* openat2: struct open_how is checked whole: a size below 24 is EINVAL,
 * nonzero bytes past the known struct E2BIG (zeros are fine), unknown
 * open or resolve flags EINVAL (openat ignores unknown open flags), a mode
 * without O_CREAT EINVAL, mode bits past 07777 EINVAL, BENEATH with
 * IN_ROOT EINVAL, O_PATH with other flags EINVAL, RESOLVE_CACHED with
 * O_CREAT or O_TRUNC EAGAIN; a good struct opens as openat would. */
#include "common.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct how { unsigned long long flags, mode, resolve; };

static long o2(const char *path, unsigned long long flags, unsigned long long mode, unsigned long long resolve)
{
    struct how h = { flags, mode, resolve };
    return syscall(SYS_openat2, AT_FDCWD, path, &h, sizeof h);
}

int main(void)
{
    put_file("f", "data");
    struct how h = { O_RDONLY, 0, 0 };
    check("size 23", syscall(SYS_openat2, AT_FDCWD, "f", &h, 23));
    check("size 0", syscall(SYS_openat2, AT_FDCWD, "f", &h, 0));
    long fd = syscall(SYS_openat2, AT_FDCWD, "f", &h, 24);
    check("size 24", fd);
    char buf[8] = { 0 };
    out("read: %ld %s", (long)read(fd, buf, 8), buf);
    out("close-on-exec without O_CLOEXEC: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    close(fd);

    struct { struct how h; unsigned long long extra[3]; } big = { { O_RDONLY, 0, 0 }, { 0, 0, 0 } };
    fd = syscall(SYS_openat2, AT_FDCWD, "f", &big, sizeof big);
    check("size 48, zeros past the struct", fd);
    close(fd);
    big.extra[2] = 1;
    check("size 48, nonzero past the struct", syscall(SYS_openat2, AT_FDCWD, "f", &big, sizeof big));
    check("bad struct address", syscall(SYS_openat2, AT_FDCWD, "f", (void *)8, 24));
    check("NULL path", syscall(SYS_openat2, AT_FDCWD, NULL, &h, 24));
    check("empty path", o2("", O_RDONLY, 0, 0));

    check("unknown open flag 1<<40", o2("f", 1ULL << 40, 0, 0));
    check("unknown open flag 0x4 (openat ignores it)", o2("f", 0x4, 0, 0));
    out("openat with 0x4: %s", (fd = openat(AT_FDCWD, "f", 0x4)) >= 0 ? "ok" : errname(errno));
    close(fd);
    check("unknown resolve flag 0x40", o2("f", O_RDONLY, 0, 0x40));
    check("BENEATH | IN_ROOT", o2("f", O_RDONLY, 0, 0x08 | 0x10));
    check("mode without O_CREAT", o2("f", O_RDONLY, 0644, 0));
    check("mode 010000 with O_CREAT", o2("g", O_RDWR | O_CREAT, 010000, 0));
    fd = o2("g", O_RDWR | O_CREAT, 0640, 0);
    check("O_CREAT mode 0640", fd);
    struct stat st;
    fstat(fd, &st);
    out("created mode (umask 022): 0%o", st.st_mode & 07777);
    close(fd);
    fd = o2("f", O_RDONLY | O_CLOEXEC, 0, 0);
    out("O_CLOEXEC: close-on-exec %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    close(fd);
    check("O_PATH | O_RDWR", o2("f", O_PATH | O_RDWR, 0, 0));
    check("O_PATH | O_APPEND", o2("f", O_PATH | O_APPEND, 0, 0));
    fd = o2("f", O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, 0);
    check("O_PATH | O_NOFOLLOW | O_CLOEXEC", fd);
    close(fd);
    check("O_TMPFILE read-only", o2(".", O_TMPFILE | O_RDONLY, 0600, 0));
    check("O_TMPFILE without O_DIRECTORY bit", o2(".", (O_TMPFILE & ~O_DIRECTORY) | O_RDWR, 0600, 0));
    check("RESOLVE_CACHED | O_CREAT", o2("h", O_RDWR | O_CREAT, 0600, 0x20));
    check("RESOLVE_CACHED | O_TRUNC", o2("f", O_RDWR | O_TRUNC, 0, 0x20));
    check("missing file", o2("none", O_RDONLY, 0, 0));
    check("O_CREAT | O_EXCL on an existing file", o2("f", O_RDWR | O_CREAT | O_EXCL, 0600, 0));
    check("O_DIRECTORY on a file", o2("f", O_RDONLY | O_DIRECTORY, 0, 0));
    check("bad dirfd", syscall(SYS_openat2, 999, "f", &h, 24));
    return 0;
}
