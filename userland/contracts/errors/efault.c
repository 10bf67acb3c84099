/* Bad pointers passed to system calls: NULL, 1, a kernel-half address, a
 * non-canonical one and the last page. Linux returns EFAULT and never kills
 * the caller (where NULL means "none" the call succeeds: "ok").
 * Raw system calls throughout, so libc never touches the pointers. */
#include "common.h"
#include <poll.h>
#include <sys/uio.h>

static const long bad[] = {0, 1, (long)0xffff800000000000UL, (long)0x0000800000000000UL, (long)0xfffffffffffff000UL};
static const char *badname[] = {"NULL", "1", "kernel", "noncanonical", "top"};
#define NBAD 5

#define EACH(label, call)                                              \
    for (int i_ = 0; i_ < NBAD; i_++) {                                \
        long P = bad[i_];                                              \
        char l_[96];                                                   \
        snprintf(l_, sizeof l_, "%s(%s)", label, badname[i_]);         \
        rcheck(l_, call);                                              \
    }

#define S(n, a, b, c, d, e, f) rawsys(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

int main(void)
{
    int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
    write(fd, "0123456789", 10);
    lseek(fd, 0, SEEK_SET);
    int p[2];
    pipe(p);
    write(p[1], "abc", 3);
    struct timeval tv0 = {0, 0};
    EACH("open path", S(SYS_open, P, O_RDONLY, 0, 0, 0, 0));
    EACH("openat path", S(SYS_openat, AT_FDCWD, P, O_RDONLY, 0, 0, 0));
    EACH("read buf", S(SYS_pread64, fd, P, 5, 0, 0, 0));
    EACH("write buf", S(SYS_pwrite64, fd, P, 5, 0, 0, 0));
    EACH("pipe read buf", S(SYS_read, p[0], P, 1, 0, 0, 0));
    EACH("readv iov", S(SYS_readv, fd, P, 1, 0, 0, 0));
    struct iovec iov = {(void *)8, 4};
    rcheck("readv iov_base 8", S(SYS_preadv, fd, &iov, 1, 0, 0, 0));
    EACH("stat path", S(SYS_stat, P, (long)&(struct stat){0}, 0, 0, 0, 0));
    EACH("stat buf", S(SYS_stat, "file", P, 0, 0, 0, 0));
    EACH("fstat buf", S(SYS_fstat, fd, P, 0, 0, 0, 0));
    EACH("newfstatat buf", S(SYS_newfstatat, AT_FDCWD, "file", P, 0, 0, 0));
    EACH("statx buf", S(SYS_statx, AT_FDCWD, "file", 0, 0x7ff, P, 0));
    EACH("pipe2 fds", S(SYS_pipe2, P, 0, 0, 0, 0, 0));
    EACH("clock_gettime", S(SYS_clock_gettime, CLOCK_MONOTONIC, P, 0, 0, 0, 0));
    EACH("gettimeofday", S(SYS_gettimeofday, P, 0, 0, 0, 0, 0));
    EACH("nanosleep req", S(SYS_nanosleep, P, 0, 0, 0, 0, 0));
    EACH("uname", S(SYS_uname, P, 0, 0, 0, 0, 0));
    EACH("sysinfo", S(SYS_sysinfo, P, 0, 0, 0, 0, 0));
    EACH("getrlimit", S(SYS_getrlimit, RLIMIT_NOFILE, P, 0, 0, 0, 0));
    EACH("getrusage", S(SYS_getrusage, 0, P, 0, 0, 0, 0));
    EACH("times", S(SYS_times, P, 0, 0, 0, 0, 0) == -EFAULT ? -EFAULT : 0); /* returns ticks */
    EACH("getcwd", S(SYS_getcwd, P, 100, 0, 0, 0, 0));
    EACH("chdir", S(SYS_chdir, P, 0, 0, 0, 0, 0));
    EACH("mkdir", S(SYS_mkdir, P, 0755, 0, 0, 0, 0));
    EACH("unlink", S(SYS_unlink, P, 0, 0, 0, 0, 0));
    EACH("rename old", S(SYS_rename, P, "x", 0, 0, 0, 0));
    EACH("readlink buf", (symlink("file", "ln"), S(SYS_readlink, "ln", P, 10, 0, 0, 0)));
    EACH("execve path", S(SYS_execve, P, 0, 0, 0, 0, 0));
    EACH("execve argv", S(SYS_execve, HELPERS "/exit-with", P, 0, 0, 0, 0));
    EACH("rt_sigaction act", S(SYS_rt_sigaction, SIGUSR1, P, 0, 8, 0, 0));
    EACH("rt_sigaction oldact", S(SYS_rt_sigaction, SIGUSR1, 0, P, 8, 0, 0));
    EACH("rt_sigprocmask set", S(SYS_rt_sigprocmask, SIG_BLOCK, P, 0, 8, 0, 0));
    EACH("rt_sigpending", S(SYS_rt_sigpending, P, 8, 0, 0, 0, 0));
    EACH("sigaltstack", S(SYS_sigaltstack, P, 0, 0, 0, 0, 0));
    EACH("poll fds", S(SYS_poll, P, 1, 0, 0, 0, 0));
    EACH("select readfds", S(SYS_select, 1, P, 0, 0, &tv0, 0));
    EACH("wait4 status", ({ pid_t c = fork(); if (c == 0) _exit(0); long r = S(SYS_wait4, c, P, 0, 0, 0, 0); if (r < 0) waitpid(c, NULL, 0); r == c ? 0 : r; }));
    EACH("getrandom", S(SYS_getrandom, P, 16, 0, 0, 0, 0));
    EACH("getgroups", S(SYS_getgroups, 4, P, 0, 0, 0, 0));
    EACH("getdents64", ({ int d = open(".", O_RDONLY); long r = S(SYS_getdents64, d, P, 4096, 0, 0, 0); close(d); r; }));
    EACH("prlimit64 new", S(SYS_prlimit64, 0, RLIMIT_NOFILE, P, 0, 0, 0));
    EACH("utimensat times", S(SYS_utimensat, AT_FDCWD, "file", P, 0, 0, 0));
    out("survived: yes");
    return 0;
}
