/* Bad file descriptors (-1, a closed one, 1000000, INT_MAX) passed to every
 * fd-taking call: EBADF, and never a crash. */
#include "common.h"
#include <poll.h>
#include <sys/mman.h>

static const long fds[] = {-1, 50, 1000000, 2147483647};
static const char *fdname[] = {"-1", "closed", "1000000", "INT_MAX"};

#define EACH(label, call)                                            \
    for (int i_ = 0; i_ < 4; i_++) {                                 \
        long F = fds[i_];                                            \
        char l_[96];                                                 \
        snprintf(l_, sizeof l_, "%s(%s)", label, fdname[i_]);        \
        rcheck(l_, call);                                            \
    }

#define S(n, a, b, c, d, e, f) rawsys(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

int main(void)
{
    char buf[64];
    struct stat st;
    EACH("read", S(SYS_read, F, buf, 1, 0, 0, 0));
    EACH("write", S(SYS_write, F, buf, 1, 0, 0, 0));
    EACH("pread64", S(SYS_pread64, F, buf, 1, 0, 0, 0));
    EACH("close", S(SYS_close, F, 0, 0, 0, 0, 0));
    EACH("fstat", S(SYS_fstat, F, &st, 0, 0, 0, 0));
    EACH("lseek", S(SYS_lseek, F, 0, SEEK_SET, 0, 0, 0));
    EACH("dup", S(SYS_dup, F, 0, 0, 0, 0, 0));
    EACH("dup2", S(SYS_dup2, F, 20, 0, 0, 0, 0));
    EACH("dup3", S(SYS_dup3, F, 20, 0, 0, 0, 0));
    EACH("fcntl F_GETFD", S(SYS_fcntl, F, F_GETFD, 0, 0, 0, 0));
    EACH("fcntl F_DUPFD", S(SYS_fcntl, F, F_DUPFD, 0, 0, 0, 0));
    EACH("fchdir", S(SYS_fchdir, F, 0, 0, 0, 0, 0));
    EACH("fchmod", S(SYS_fchmod, F, 0644, 0, 0, 0, 0));
    EACH("fchown", S(SYS_fchown, F, 0, 0, 0, 0, 0));
    EACH("ftruncate", S(SYS_ftruncate, F, 0, 0, 0, 0, 0));
    EACH("fsync", S(SYS_fsync, F, 0, 0, 0, 0, 0));
    EACH("getdents64", S(SYS_getdents64, F, buf, sizeof buf, 0, 0, 0));
    EACH("openat relative", S(SYS_openat, F, "x", O_RDONLY, 0, 0, 0));
    EACH("mkdirat relative", S(SYS_mkdirat, F, "x", 0755, 0, 0, 0));
    EACH("newfstatat relative", S(SYS_newfstatat, F, "x", &st, 0, 0, 0));
    EACH("newfstatat AT_EMPTY_PATH", S(SYS_newfstatat, F, "", &st, AT_EMPTY_PATH, 0, 0));
    EACH("unlinkat", S(SYS_unlinkat, F, "x", 0, 0, 0, 0));
    EACH("mmap file", (long)S(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, F, 0));
    EACH("ioctl", S(SYS_ioctl, F, 0x5401, buf, 0, 0, 0));
    EACH("fsync", S(SYS_fdatasync, F, 0, 0, 0, 0, 0));
    EACH("utimensat fd", S(SYS_utimensat, F, 0, 0, 0, 0, 0));
    EACH("readlinkat", S(SYS_readlinkat, F, "x", buf, sizeof buf, 0, 0));
    EACH("faccessat2", S(SYS_faccessat2, F, "x", F_OK, 0, 0, 0));
    struct pollfd pf = {(int)fds[2], POLLIN, 0};
    long r = S(SYS_poll, &pf, 1, 0, 0, 0, 0);
    out("poll on bad fd: returns %ld revents NVAL=%s", r, yesno(pf.revents & POLLNVAL));
    out("close_range over nothing: %s", S(SYS_close_range, 100, 200, 0, 0, 0, 0) == 0 ? "ok" : "error");
    out("survived: yes");
    return 0;
}
