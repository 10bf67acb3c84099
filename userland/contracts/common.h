/* Shared helpers for the contract tests (userland/contracts/<area>/<name>.c).
 *
 * Rules every test follows (docs/contracts.md):
 *   - print only deterministic facts: values, errno names, defined orderings;
 *     never pids, addresses, times or inode numbers ("differs: yes" instead);
 *   - print with out() (one write(2) per line, safe across fork and in
 *     signal handlers), never with stdio, so nothing sits in a buffer;
 *   - exit 0 at the end; a crash or another status is part of the output.
 *
 * Only musl's headers are available (no <linux/...>), so the few kernel ABI
 * definitions musl does not have are spelled out below.
 */
#ifndef CONTRACTS_COMMON_H
#define CONTRACTS_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- output ------------------------------------------------------------ */

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void out(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof buf - 2)
        n = sizeof buf - 2;
    if (n == 0 || buf[n - 1] != '\n')
        buf[n++] = '\n';
    int saved = errno;
    for (int off = 0; off < n;) {
        ssize_t w = write(1, buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += w;
    }
    errno = saved;
}

/* ---- names ------------------------------------------------------------- */

static const char *errname(int e) __attribute__((unused));
static const char *errname(int e)
{
    switch (e) {
#define E(x) case x: return #x;
    E(EPERM) E(ENOENT) E(ESRCH) E(EINTR) E(EIO) E(ENXIO) E(E2BIG) E(ENOEXEC)
    E(EBADF) E(ECHILD) E(EAGAIN) E(ENOMEM) E(EACCES) E(EFAULT) E(ENOTBLK)
    E(EBUSY) E(EEXIST) E(EXDEV) E(ENODEV) E(ENOTDIR) E(EISDIR) E(EINVAL)
    E(ENFILE) E(EMFILE) E(ENOTTY) E(ETXTBSY) E(EFBIG) E(ENOSPC) E(ESPIPE)
    E(EROFS) E(EMLINK) E(EPIPE) E(EDOM) E(ERANGE) E(EDEADLK) E(ENAMETOOLONG)
    E(ENOLCK) E(ENOSYS) E(ENOTEMPTY) E(ELOOP) E(ENOMSG) E(EIDRM) E(ENODATA)
    E(ETIME) E(EOVERFLOW) E(EILSEQ) E(ENOTSOCK) E(EDESTADDRREQ) E(EMSGSIZE)
    E(EPROTOTYPE) E(ENOPROTOOPT) E(EPROTONOSUPPORT) E(EOPNOTSUPP)
    E(EAFNOSUPPORT) E(EADDRINUSE) E(ECONNREFUSED) E(ETIMEDOUT) E(EALREADY)
    E(EINPROGRESS) E(ESTALE) E(EDQUOT) E(ECANCELED) E(EOWNERDEAD)
    E(ENOTRECOVERABLE) E(ERESTART) E(ENOTCONN) E(EBADFD) E(ENOKEY)
    E(EKEYREVOKED) E(EKEYEXPIRED) E(EKEYREJECTED) E(ECONNRESET) E(EISCONN) E(ESOCKTNOSUPPORT) E(EPFNOSUPPORT) E(ENOBUFS)
    E(ECONNABORTED) E(EADDRNOTAVAIL) E(ESHUTDOWN) E(ETOOMANYREFS)
    E(ENETUNREACH) E(EHOSTUNREACH) E(ENETDOWN)
#undef E
    case 0: return "0";
    }
    static char buf[32];
    snprintf(buf, sizeof buf, "errno%d", e);
    return buf;
}

static const char *signame(int s) __attribute__((unused));
static const char *signame(int s)
{
    switch (s) {
#define S(x) case x: return #x;
    S(SIGHUP) S(SIGINT) S(SIGQUIT) S(SIGILL) S(SIGTRAP) S(SIGABRT) S(SIGBUS)
    S(SIGFPE) S(SIGKILL) S(SIGUSR1) S(SIGSEGV) S(SIGUSR2) S(SIGPIPE) S(SIGALRM)
    S(SIGTERM) S(SIGSTKFLT) S(SIGCHLD) S(SIGCONT) S(SIGSTOP) S(SIGTSTP)
    S(SIGTTIN) S(SIGTTOU) S(SIGURG) S(SIGXCPU) S(SIGXFSZ) S(SIGVTALRM)
    S(SIGPROF) S(SIGWINCH) S(SIGIO) S(SIGPWR) S(SIGSYS)
#undef S
    case 0: return "0";
    }
    static char buf[32];
    snprintf(buf, sizeof buf, "signal%d", s);
    return buf;
}

/* ---- results ----------------------------------------------------------- */

/* "label: <value>" on success, "label: -1 ENAME" on failure (errno style). */
static long show(const char *label, long r) __attribute__((unused));
static long show(const char *label, long r)
{
    int e = errno;
    if (r == -1)
        out("%s: -1 %s", label, errname(e));
    else
        out("%s: %ld", label, r);
    errno = e;
    return r;
}

/* "label: ok" on success (any r >= 0), "label: ENAME" on failure. */
static long check(const char *label, long r) __attribute__((unused));
static long check(const char *label, long r)
{
    int e = errno;
    if (r == -1)
        out("%s: %s", label, errname(e));
    else
        out("%s: ok", label);
    errno = e;
    return r;
}

/* For calls that return an error number instead of setting errno
 * (clock_nanosleep, posix_* functions). */
static int check_rc(const char *label, int rc) __attribute__((unused));
static int check_rc(const char *label, int rc)
{
    if (rc == 0)
        out("%s: ok", label);
    else
        out("%s: %s", label, errname(rc));
    return rc;
}

/* Raw system call that returns -errno instead of touching errno; used where
 * a libc wrapper would itself dereference a bad pointer. */
static long rawsys(long n, long a, long b, long c, long d, long e, long f) __attribute__((unused));
static long rawsys(long n, long a, long b, long c, long d, long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

/* "label: ok" / "label: ENAME" for a rawsys() result. */
static long rcheck(const char *label, long r) __attribute__((unused));
static long rcheck(const char *label, long r)
{
    if (r < 0 && r > -4096)
        out("%s: %s", label, errname((int)-r));
    else
        out("%s: ok", label);
    return r;
}

static const char *yesno(int b) __attribute__((unused));
static const char *yesno(int b) { return b ? "yes" : "no"; }

/* Decode a wait status the way a test prints it. */
static const char *wstatus(int st) __attribute__((unused));
static const char *wstatus(int st)
{
    static char buf[64];
    if (WIFEXITED(st))
        snprintf(buf, sizeof buf, "exited %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, sizeof buf, "killed by %s", signame(WTERMSIG(st)));
    else if (WIFSTOPPED(st))
        snprintf(buf, sizeof buf, "stopped by %s", signame(WSTOPSIG(st)));
    else if (WIFCONTINUED(st))
        snprintf(buf, sizeof buf, "continued");
    else
        snprintf(buf, sizeof buf, "unknown status 0x%x", st);
    return buf;
}

/* Wait for one child and print "label: <decoded status>". */
static int reap(const char *label, pid_t pid) __attribute__((unused));
static int reap(const char *label, pid_t pid)
{
    int st = 0;
    pid_t r;
    do
        r = waitpid(pid, &st, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        out("%s: waitpid %s", label, errname(errno));
        return -1;
    }
    out("%s: %s", label, wstatus(st));
    return st;
}

/* ---- small utilities --------------------------------------------------- */

static void msleep(long ms) __attribute__((unused));
static void msleep(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static long long now_ns(clockid_t c) __attribute__((unused));
static long long now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Create a file with the given contents (mode 0644). Returns 0 or -1. */
static int put_file(const char *path, const char *data) __attribute__((unused));
static int put_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    size_t len = strlen(data);
    ssize_t w = write(fd, data, len);
    close(fd);
    return w == (ssize_t)len ? 0 : -1;
}

/* read() until n bytes or EOF/error; returns bytes read or -1. */
static ssize_t read_full(int fd, void *buf, size_t n) __attribute__((unused));
static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return got ? (ssize_t)got : -1;
        if (r == 0)
            break;
        got += r;
    }
    return got;
}

/* Copies file `from` to `to` (created or truncated with `mode`), as the
 * tests that execute a program under another name need; returns `to`
 * still open for writing (ETXTBSY tests keep it so), for the caller to
 * close. */
static int copy_file_open(const char *from, const char *to, mode_t mode) __attribute__((unused));
static int copy_file_open(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY);
    int to_fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
    char buf[4096];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        write(to_fd, buf, n);
    close(in);
    return to_fd;
}

static const char *ftype(mode_t m) __attribute__((unused));
static const char *ftype(mode_t m)
{
    switch (m & S_IFMT) {
    case S_IFREG: return "regular";
    case S_IFDIR: return "directory";
    case S_IFLNK: return "symlink";
    case S_IFIFO: return "fifo";
    case S_IFCHR: return "chardev";
    case S_IFBLK: return "blockdev";
    case S_IFSOCK: return "socket";
    }
    return "unknown";
}

/* Helpers the tests exec live here. */
#define HELPERS "/contracts/helpers"

/* ---- kernel ABI bits musl's headers lack ------------------------------- */

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef SYS_statx
#define SYS_statx 332
#endif
#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 1
#endif
#ifndef GRND_RANDOM
#define GRND_RANDOM 2
#endif
#ifndef GRND_INSECURE
#define GRND_INSECURE 4
#endif

struct k_statx_timestamp {
    int64_t tv_sec;
    uint32_t tv_nsec;
    int32_t reserved;
};

struct k_statx {
    uint32_t stx_mask;
    uint32_t stx_blksize;
    uint64_t stx_attributes;
    uint32_t stx_nlink;
    uint32_t stx_uid;
    uint32_t stx_gid;
    uint16_t stx_mode;
    uint16_t spare0;
    uint64_t stx_ino;
    uint64_t stx_size;
    uint64_t stx_blocks;
    uint64_t stx_attributes_mask;
    struct k_statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
    uint32_t stx_rdev_major, stx_rdev_minor;
    uint32_t stx_dev_major, stx_dev_minor;
    uint64_t spare2[14];
};

#define K_STATX_TYPE 0x001U
#define K_STATX_MODE 0x002U
#define K_STATX_NLINK 0x004U
#define K_STATX_UID 0x008U
#define K_STATX_GID 0x010U
#define K_STATX_ATIME 0x020U
#define K_STATX_MTIME 0x040U
#define K_STATX_CTIME 0x080U
#define K_STATX_INO 0x100U
#define K_STATX_SIZE 0x200U
#define K_STATX_BLOCKS 0x400U
#define K_STATX_BASIC_STATS 0x7ffU

#endif
