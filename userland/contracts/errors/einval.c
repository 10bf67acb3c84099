/* Bad flags and arguments: EINVAL (or the documented errno) for unknown
 * flag bits, bad `whence`/`how`/`which` values and out-of-range numbers. */
#include "common.h"
#include <sys/mman.h>
#include <sys/resource.h>

#define S(n, a, b, c, d, e, f) rawsys(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char buf[64];
    struct stat st;
    sigset_t set;
    sigemptyset(&set);
    long kill_act[4] = {1, 0, 0, 0};
    struct timespec tiny = {0, 1}, negns = {0, -1};
    long badstack[3] = {(long)buf, 0x55, 65536};
    rcheck("openat unknown flag bits (ignored by open)", S(SYS_openat, AT_FDCWD, "f", O_RDONLY | 0x40000000, 0, 0, 0));
    rcheck("openat O_TMPFILE without write", S(SYS_openat, AT_FDCWD, ".", 020000000 | 0200000 | O_RDONLY, 0600, 0, 0));
    rcheck("lseek whence 7", S(SYS_lseek, fd, 0, 7, 0, 0, 0));
    rcheck("fcntl cmd 9999", S(SYS_fcntl, fd, 9999, 0, 0, 0, 0));
    rcheck("dup3 flags 1", S(SYS_dup3, fd, 30, 1, 0, 0, 0));
    rcheck("pipe2 flags O_APPEND", S(SYS_pipe2, (long)(int[2]){0}, O_APPEND, 0, 0, 0, 0));
    rcheck("newfstatat flags 0x1", S(SYS_newfstatat, AT_FDCWD, "f", &st, 0x1, 0, 0));
    rcheck("statx flags 0x80000000", S(SYS_statx, AT_FDCWD, "f", 0x80000000, 0x7ff, buf, 0));
    rcheck("unlinkat flags 0x1", S(SYS_unlinkat, AT_FDCWD, "f", 0x1, 0, 0, 0));
    rcheck("renameat2 flags 0x8000", S(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "g", 0x8000, 0));
    rcheck("linkat flags 0x1", S(SYS_linkat, AT_FDCWD, "f", AT_FDCWD, "g", 0x1, 0));
    rcheck("faccessat2 mode 8", S(SYS_faccessat2, AT_FDCWD, "f", 8, 0, 0, 0));
    rcheck("faccessat2 flags 0x1", S(SYS_faccessat2, AT_FDCWD, "f", F_OK, 0x1, 0, 0));
    rcheck("utimensat flags 0x1", S(SYS_utimensat, AT_FDCWD, "f", 0, 0x1, 0, 0));
    rcheck("close_range flags 0x1", S(SYS_close_range, 10, 20, 0x1, 0, 0, 0));
    rcheck("mmap no MAP_PRIVATE/SHARED", S(SYS_mmap, 0, 4096, PROT_READ, MAP_ANONYMOUS, -1, 0));
    rcheck("mmap length 0", S(SYS_mmap, 0, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    rcheck("mmap unaligned offset", S(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE, fd, 1));
    rcheck("munmap unaligned", S(SYS_munmap, 1, 4096, 0, 0, 0, 0));
    rcheck("mprotect bad prot", S(SYS_mprotect, 0x10000, 4096, 0x80, 0, 0, 0));
    rcheck("madvise advice 999", S(SYS_madvise, 0x10000, 4096, 999, 0, 0, 0));
    rcheck("mremap flags 0x80", S(SYS_mremap, 0x10000, 4096, 8192, 0x80, 0, 0));
    rcheck("rt_sigaction signal 0", S(SYS_rt_sigaction, 0, 0, 0, 8, 0, 0));
    rcheck("rt_sigaction signal 65", S(SYS_rt_sigaction, 65, 0, 0, 8, 0, 0));
    rcheck("rt_sigaction SIGKILL handler", S(SYS_rt_sigaction, SIGKILL, kill_act, 0, 8, 0, 0));
    rcheck("rt_sigaction sigsetsize 16", S(SYS_rt_sigaction, SIGUSR1, 0, 0, 16, 0, 0));
    rcheck("rt_sigprocmask how 3", S(SYS_rt_sigprocmask, 3, &set, 0, 8, 0, 0));
    rcheck("rt_sigprocmask sigsetsize 16", S(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 16, 0, 0));
    rcheck("kill signal 65", S(SYS_kill, getpid(), 65, 0, 0, 0, 0));
    rcheck("wait4 options 0x10", S(SYS_wait4, -1, 0, 0x10, 0, 0, 0));
    rcheck("waitid idtype 9", S(SYS_waitid, 9, 0, buf, WEXITED, 0, 0));
    rcheck("waitid options 0", S(SYS_waitid, P_ALL, 0, buf, 0, 0, 0));
    rcheck("clock_gettime clock 99", S(SYS_clock_gettime, 99, buf, 0, 0, 0, 0));
    rcheck("clock_nanosleep flags 0x2", S(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0x2, &tiny, 0, 0, 0));
    rcheck("nanosleep tv_nsec -1", S(SYS_nanosleep, &negns, 0, 0, 0, 0, 0));
    rcheck("getrlimit resource 99", S(SYS_getrlimit, 99, buf, 0, 0, 0, 0));
    rcheck("getrusage who 5", S(SYS_getrusage, 5, buf, 0, 0, 0, 0));
    rcheck("getrandom flags 0x40", S(SYS_getrandom, buf, 8, 0x40, 0, 0, 0));
    rcheck("setpgid pgid -1", S(SYS_setpgid, 0, -1, 0, 0, 0, 0));
    rcheck("setitimer which 5", S(SYS_setitimer, 5, buf, 0, 0, 0, 0));
    rcheck("sched_setaffinity empty mask", S(SYS_sched_setaffinity, 0, 8, (long)(long[1]){0}, 0, 0, 0));
    rcheck("setpriority which 9", S(SYS_setpriority, 9, 0, 0, 0, 0, 0));
    rcheck("readv iovcnt -1", S(SYS_readv, fd, buf, -1, 0, 0, 0));
    rcheck("getdents64 count 1", S(SYS_getdents64, open(".", O_RDONLY), buf, 1, 0, 0, 0));
    rcheck("poll nfds over RLIMIT_NOFILE", S(SYS_poll, buf, 1L << 30, 0, 0, 0, 0));
    rcheck("select nfds -1", S(SYS_select, -1, 0, 0, 0, 0, 0));
    rcheck("mknod bad type", S(SYS_mknod, "node", 0170000 | 0644, 0, 0, 0, 0));
    rcheck("sigaltstack bad flags", S(SYS_sigaltstack, badstack, 0, 0, 0, 0, 0));
    rcheck("unknown syscall 1000", S(1000, 0, 0, 0, 0, 0, 0));
    rcheck("unknown syscall -1", S(-1, 0, 0, 0, 0, 0, 0));
    out("survived: yes");
    return 0;
}
