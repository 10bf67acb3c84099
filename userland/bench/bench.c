/* bench: Kevlar's benchmark program (docs/benchmarks.md).
 *
 * One static musl binary, run the same way under Linux and under Kevlar by
 * the bench init (bench-init.c), driven from the host by tools/bench.py.
 *
 *     bench [quick | profile] [micro | workloads | all] [NAME ...]
 *
 * Output, one line per benchmark:
 *
 *     BENCH <name> <ns per op>                      (one decimal)
 *     BENCH <name> unsupported <ERRNO NAME>         (the operation failed)
 *
 * and after it a `BENCH-DETAIL` line (iterations, slowest and fastest
 * round) that tools/bench.py keeps in report.json. The last line is
 * `BENCH-END ran=N unsupported=M`.
 *
 * Microbenchmarks: the operation is run N times between two
 * clock_gettime(CLOCK_MONOTONIC) readings (a round); N is chosen so that a
 * round lasts about 3 ms of guest time (doubling from 1 until a round is
 * long enough, which also warms caches and page tables up); the figure is
 * the median of 5 rounds divided by N. A benchmark whose first operation
 * fails is reported as unsupported with the errno, never as a time.
 *
 * Workloads: BusyBox commands (run through `/bin/sh -c`, or exec'd
 * directly for `true` and `sh -c :`), each timed from fork to wait, median
 * of 3 runs, after untimed set-up (input files are written by this program,
 * so generating them costs no shell time).
 *
 * `quick`: one round of a ~0.1 ms target for microbenchmarks, one run of
 * each workload on inputs 1/16 of the size; same output format. `make test`
 * uses it so the benchmarks keep working.
 *
 * `profile`: rounds of ~0.3 s of guest time, for tools/profile.py to
 * sample (the figures are as valid as any, only slower to get).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "say.h"

#define NOP_PATH "/bench/nop"
#define SCRATCH "/tmp/bench"
#define WL "/tmp/wl"
#define PAGE 4096
#define FAULT_PAGES 256

static int quick;
static int profile;
static int n_ran, n_unsupported;

static char *const child_env[] = {
    "PATH=/bin:/sbin:/usr/bin:/usr/sbin",
    "HOME=/",
    "LANG=C",
    NULL,
};

/* ------------------------------------------------------------------ */
/* Output: one write(2) per line, so nothing is buffered across fork.   */
/* ------------------------------------------------------------------ */

static const char *errname(int e)
{
    static const struct {
        int e;
        const char *name;
    } names[] = {
        {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"}, {EINTR, "EINTR"},
        {EIO, "EIO"}, {ENXIO, "ENXIO"}, {E2BIG, "E2BIG"}, {ENOEXEC, "ENOEXEC"},
        {EBADF, "EBADF"}, {ECHILD, "ECHILD"}, {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"},
        {EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"}, {EEXIST, "EEXIST"},
        {EXDEV, "EXDEV"}, {ENODEV, "ENODEV"}, {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},
        {EINVAL, "EINVAL"}, {ENFILE, "ENFILE"}, {EMFILE, "EMFILE"}, {ENOTTY, "ENOTTY"},
        {EFBIG, "EFBIG"}, {ENOSPC, "ENOSPC"}, {ESPIPE, "ESPIPE"}, {EROFS, "EROFS"},
        {EPIPE, "EPIPE"}, {ERANGE, "ERANGE"}, {EDEADLK, "EDEADLK"},
        {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOLCK, "ENOLCK"}, {ENOSYS, "ENOSYS"},
        {ENOTEMPTY, "ENOTEMPTY"}, {ELOOP, "ELOOP"}, {ENOTSOCK, "ENOTSOCK"},
        {EPROTONOSUPPORT, "EPROTONOSUPPORT"}, {EOPNOTSUPP, "EOPNOTSUPP"},
        {EAFNOSUPPORT, "EAFNOSUPPORT"}, {ECONNRESET, "ECONNRESET"},
        {ETIMEDOUT, "ETIMEDOUT"}, {ECONNREFUSED, "ECONNREFUSED"}, {EADDRINUSE, "EADDRINUSE"},
        {EADDRNOTAVAIL, "EADDRNOTAVAIL"}, {ENOBUFS, "ENOBUFS"}, {ENETUNREACH, "ENETUNREACH"},
    };
    static char other[16];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].e == e)
            return names[i].name;
    snprintf(other, sizeof other, "E%d", e);
    return other;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Shared state and helpers for the microbenchmarks.                    */
/* ------------------------------------------------------------------ */

static char buf[65536];
static int fd_read = -1;   /* SCRATCH/rd: READ_FILE_SIZE bytes */
static int fd_write = -1;  /* SCRATCH/wr */
static int fd_lock = -1;   /* SCRATCH/f, read-write */
static int fd_zero = -1, fd_null = -1, fd_dir = -1;
static int ping[2] = {-1, -1}, pong[2] = {-1, -1};
static int sock[2] = {-1, -1};
static pid_t echo_child = -1;
static char *map_page;
static uintptr_t brk_base;
static volatile sig_atomic_t signals_seen;
static cpu_set_t saved_affinity;
static int affinity_saved;
static uint64_t time_override; /* set by a run function that times itself */
static int futex_word;

#define READ_FILE_SIZE (256 * 1024)
#define IO_SIZE 64

/* Fail with the errno of a call that returned -1. */
#define TRY(call)                     \
    do {                              \
        if ((call) < 0)               \
            return errno ? errno : EIO; \
    } while (0)

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        if (w == 0)
            return EIO;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int make_file(const char *path, size_t size, char fill)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errno;
    char chunk[4096];
    memset(chunk, fill, sizeof chunk);
    int e = 0;
    while (size > 0 && !e) {
        size_t n = size < sizeof chunk ? size : sizeof chunk;
        e = write_all(fd, chunk, n);
        size -= n;
    }
    close(fd);
    return e;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Sequential 64-byte I/O over a 256 KiB file, rewinding at the end: a
 * steady state in which every page already exists. */
static off_t io_pos;

static int rewind_if_needed(int fd)
{
    if (io_pos + IO_SIZE > READ_FILE_SIZE) {
        TRY(lseek(fd, 0, SEEK_SET));
        io_pos = 0;
    }
    io_pos += IO_SIZE;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Microbenchmarks: each run function does `n` operations and returns   */
/* 0, or the errno of the first failure.                                */
/* ------------------------------------------------------------------ */

static int run_getpid(long n)
{
    for (long i = 0; i < n; i++)
        TRY(syscall(SYS_getpid));
    return 0;
}

static int run_getuid(long n)
{
    for (long i = 0; i < n; i++)
        getuid();
    return 0;
}

static int run_gettid(long n)
{
    for (long i = 0; i < n; i++)
        TRY(syscall(SYS_gettid));
    return 0;
}

static int run_getpriority(long n)
{
    for (long i = 0; i < n; i++) {
        errno = 0;
        if (getpriority(PRIO_PROCESS, 0) == -1 && errno)
            return errno;
    }
    return 0;
}

static int run_uname(long n)
{
    struct utsname u;
    for (long i = 0; i < n; i++)
        TRY(uname(&u));
    return 0;
}

static int run_clock_gettime(long n)
{
    struct timespec ts;
    for (long i = 0; i < n; i++)
        TRY(clock_gettime(CLOCK_MONOTONIC, &ts));
    return 0;
}

static int run_gettimeofday(long n)
{
    struct timeval tv;
    for (long i = 0; i < n; i++)
        TRY(gettimeofday(&tv, NULL));
    return 0;
}

static int setup_dev(void)
{
    fd_zero = open("/dev/zero", O_RDONLY);
    if (fd_zero < 0)
        return errno;
    fd_null = open("/dev/null", O_WRONLY);
    if (fd_null < 0)
        return errno;
    return 0;
}

static void teardown_dev(void)
{
    close_fd(&fd_zero);
    close_fd(&fd_null);
}

static int run_read_devzero(long n)
{
    for (long i = 0; i < n; i++)
        if (read(fd_zero, buf, 1) != 1)
            return errno ? errno : EIO;
    return 0;
}

static int run_write_devnull(long n)
{
    for (long i = 0; i < n; i++)
        if (write(fd_null, buf, 1) != 1)
            return errno ? errno : EIO;
    return 0;
}

static int setup_files(void)
{
    int e;
    mkdir(SCRATCH, 0755);
    if ((e = make_file(SCRATCH "/rd", READ_FILE_SIZE, 'r')))
        return e;
    if ((e = make_file(SCRATCH "/wr", READ_FILE_SIZE, 'w')))
        return e;
    if ((e = make_file(SCRATCH "/f", 4096, 'f')))
        return e;
    unlink(SCRATCH "/link");
    if (symlink("f", SCRATCH "/link") < 0)
        return errno;
    fd_read = open(SCRATCH "/rd", O_RDONLY);
    if (fd_read < 0)
        return errno;
    fd_write = open(SCRATCH "/wr", O_WRONLY);
    if (fd_write < 0)
        return errno;
    fd_lock = open(SCRATCH "/f", O_RDWR);
    if (fd_lock < 0)
        return errno;
    io_pos = 0;
    return 0;
}

static void teardown_files(void)
{
    close_fd(&fd_read);
    close_fd(&fd_write);
    close_fd(&fd_lock);
}

static int run_read_tmpfs(long n)
{
    for (long i = 0; i < n; i++) {
        int e = rewind_if_needed(fd_read);
        if (e)
            return e;
        if (read(fd_read, buf, IO_SIZE) != IO_SIZE)
            return errno ? errno : EIO;
    }
    return 0;
}

static int run_write_tmpfs(long n)
{
    for (long i = 0; i < n; i++) {
        int e = rewind_if_needed(fd_write);
        if (e)
            return e;
        if (write(fd_write, buf, IO_SIZE) != IO_SIZE)
            return errno ? errno : EIO;
    }
    return 0;
}

static int run_pread(long n)
{
    for (long i = 0; i < n; i++)
        if (pread(fd_read, buf, IO_SIZE, 4096) != IO_SIZE)
            return errno ? errno : EIO;
    return 0;
}

static int run_readv(long n)
{
    struct iovec iov[2] = {{buf, IO_SIZE / 2}, {buf + 1024, IO_SIZE / 2}};
    for (long i = 0; i < n; i++) {
        int e = rewind_if_needed(fd_read);
        if (e)
            return e;
        if (readv(fd_read, iov, 2) != IO_SIZE)
            return errno ? errno : EIO;
    }
    return 0;
}

static int run_writev(long n)
{
    struct iovec iov[2] = {{buf, IO_SIZE / 2}, {buf + 1024, IO_SIZE / 2}};
    for (long i = 0; i < n; i++) {
        int e = rewind_if_needed(fd_write);
        if (e)
            return e;
        if (writev(fd_write, iov, 2) != IO_SIZE)
            return errno ? errno : EIO;
    }
    return 0;
}

static int run_lseek(long n)
{
    for (long i = 0; i < n; i++)
        TRY(lseek(fd_read, (off_t)(i & 1) * 64, SEEK_SET));
    return 0;
}

static int run_open_close(long n)
{
    for (long i = 0; i < n; i++) {
        int fd = open(SCRATCH "/f", O_RDONLY);
        TRY(fd);
        close(fd);
    }
    return 0;
}

static int run_stat(long n)
{
    struct stat st;
    for (long i = 0; i < n; i++)
        TRY(stat(SCRATCH "/f", &st));
    return 0;
}

static int run_fstat(long n)
{
    struct stat st;
    for (long i = 0; i < n; i++)
        TRY(fstat(fd_read, &st));
    return 0;
}

static int run_statx(long n)
{
    /* Raw call: struct statx is 256 bytes; no libc wrapper needed. */
    for (long i = 0; i < n; i++)
        TRY(syscall(SYS_statx, AT_FDCWD, SCRATCH "/f", 0, 0x7ffu, buf));
    return 0;
}

static int run_readlink(long n)
{
    for (long i = 0; i < n; i++)
        if (readlink(SCRATCH "/link", buf, 64) != 1)
            return errno ? errno : EIO;
    return 0;
}

static int run_access(long n)
{
    for (long i = 0; i < n; i++)
        TRY(access(SCRATCH "/f", R_OK));
    return 0;
}

static int setup_dir(void)
{
    char path[64];
    mkdir(SCRATCH, 0755);
    mkdir(SCRATCH "/dir100", 0755);
    for (int i = 0; i < 100; i++) {
        snprintf(path, sizeof path, SCRATCH "/dir100/entry-%03d", i);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
            return errno;
        close(fd);
    }
    fd_dir = open(SCRATCH "/dir100", O_RDONLY | O_DIRECTORY);
    return fd_dir < 0 ? errno : 0;
}

static void teardown_dir(void)
{
    close_fd(&fd_dir);
}

/* One op: rewind and read the whole 100-entry directory (plus . and ..). */
static int run_getdents(long n)
{
    for (long i = 0; i < n; i++) {
        TRY(lseek(fd_dir, 0, SEEK_SET));
        long seen = 0;
        for (;;) {
            long got = syscall(SYS_getdents64, fd_dir, buf, sizeof buf);
            TRY(got);
            if (got == 0)
                break;
            seen += got;
        }
        if (seen == 0)
            return EIO;
    }
    return 0;
}

static int run_dup_close(long n)
{
    for (long i = 0; i < n; i++) {
        int fd = dup(fd_read);
        TRY(fd);
        close(fd);
    }
    return 0;
}

static int run_pipe_create(long n)
{
    int p[2];
    for (long i = 0; i < n; i++) {
        TRY(pipe(p));
        close(p[0]);
        close(p[1]);
    }
    return 0;
}

/* An echo process: reads one byte from `in`, writes it to `out`, until EOF. */
static int start_echo(int in_r, int in_w, int out_r, int out_w)
{
    pid_t pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0) {
        char c;
        close(in_w);
        close(out_r);
        for (;;) {
            ssize_t r = read(in_r, &c, 1);
            if (r < 0 && errno == EINTR)
                continue;
            if (r != 1)
                _exit(0);
            if (write(out_w, &c, 1) != 1)
                _exit(1);
        }
    }
    echo_child = pid;
    return 0;
}

static void stop_echo(void)
{
    close_fd(&ping[1]);
    close_fd(&ping[0]);
    close_fd(&pong[1]);
    close_fd(&pong[0]);
    close_fd(&sock[0]);
    close_fd(&sock[1]);
    if (echo_child > 0) {
        int st;
        if (waitpid(echo_child, &st, 0) < 0) {
            kill(echo_child, SIGKILL);
            waitpid(echo_child, &st, 0);
        }
    }
    echo_child = -1;
}

static int setup_pipe_echo(void)
{
    TRY(pipe(ping));
    TRY(pipe(pong));
    int e = start_echo(ping[0], ping[1], pong[0], pong[1]);
    if (e)
        return e;
    close_fd(&ping[0]);
    close_fd(&pong[1]);
    return 0;
}

/* One op: a byte to the echo process and back. */
static int pingpong(int out, int in, long n)
{
    char c = 'x';
    for (long i = 0; i < n; i++) {
        if (write(out, &c, 1) != 1)
            return errno ? errno : EPIPE;
        if (read(in, &c, 1) != 1)
            return errno ? errno : EPIPE;
    }
    return 0;
}

static int run_pipe_pingpong(long n)
{
    return pingpong(ping[1], pong[0], n);
}

static int setup_socketpair(void)
{
    TRY(socketpair(AF_UNIX, SOCK_STREAM, 0, sock));
    int e = start_echo(sock[1], sock[0], -1, sock[1]);
    if (e)
        return e;
    close_fd(&sock[1]);
    return 0;
}

static int run_socketpair_pingpong(long n)
{
    return pingpong(sock[0], sock[0], n);
}

/* Both processes on CPU 0, so every hand-over is a context switch. */
static int setup_ctxsw(void)
{
    cpu_set_t one;
    if (sched_getaffinity(0, sizeof saved_affinity, &saved_affinity) < 0)
        return errno;
    affinity_saved = 1;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    TRY(sched_setaffinity(0, sizeof one, &one));
    return setup_pipe_echo();
}

static void teardown_ctxsw(void)
{
    stop_echo();
    if (affinity_saved)
        sched_setaffinity(0, sizeof saved_affinity, &saved_affinity);
    affinity_saved = 0;
}

static int run_mmap_munmap(long n)
{
    for (long i = 0; i < n; i++) {
        void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return errno;
        TRY(munmap(p, PAGE));
    }
    return 0;
}

/* Times only the first touch of each page (mmap and munmap are outside
 * the measured part); one op is one page. */
static int run_page_fault(long n)
{
    uint64_t spent = 0;
    for (long i = 0; i < n; i++) {
        char *p = mmap(NULL, FAULT_PAGES * PAGE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return errno;
        uint64_t t0 = now_ns();
        for (int pg = 0; pg < FAULT_PAGES; pg++)
            ((volatile char *)p)[pg * PAGE] = 1;
        spent += now_ns() - t0;
        TRY(munmap(p, FAULT_PAGES * PAGE));
    }
    time_override = spent;
    return 0;
}

static int setup_page(void)
{
    map_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map_page == MAP_FAILED) {
        map_page = NULL;
        return errno;
    }
    map_page[0] = 1;
    return 0;
}

static void teardown_page(void)
{
    if (map_page)
        munmap(map_page, PAGE);
    map_page = NULL;
}

static int run_mprotect(long n)
{
    for (long i = 0; i < n; i++)
        TRY(mprotect(map_page, PAGE, (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ));
    return mprotect(map_page, PAGE, PROT_READ | PROT_WRITE) < 0 ? errno : 0;
}

static int setup_brk(void)
{
    /* Raw brk: musl's brk() wrapper refuses to move the break. */
    brk_base = (uintptr_t)syscall(SYS_brk, 0);
    return brk_base ? 0 : ENOMEM;
}

/* One op: grow the break by a page, then shrink it back. */
static int run_brk(long n)
{
    for (long i = 0; i < n; i++) {
        if ((uintptr_t)syscall(SYS_brk, brk_base + PAGE) != brk_base + PAGE)
            return ENOMEM;
        if ((uintptr_t)syscall(SYS_brk, brk_base) != brk_base)
            return ENOMEM;
    }
    return 0;
}

static int run_sched_yield(long n)
{
    for (long i = 0; i < n; i++)
        TRY(sched_yield());
    return 0;
}

static void on_usr1(int sig)
{
    (void)sig;
    signals_seen++;
}

static int setup_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    TRY(sigaction(SIGUSR1, &sa, NULL));
    return 0;
}

static void teardown_signal(void)
{
    signal(SIGUSR1, SIG_DFL);
}

static int run_signal(long n)
{
    for (long i = 0; i < n; i++) {
        sig_atomic_t before = signals_seen;
        TRY(raise(SIGUSR1));
        if (signals_seen != before + 1)
            return EINTR; /* the handler did not run */
    }
    return 0;
}

static int run_futex_wake(long n)
{
    for (long i = 0; i < n; i++)
        TRY(syscall(SYS_futex, &futex_word, 1 | 128 /* FUTEX_WAKE_PRIVATE */, 1, NULL, NULL, 0));
    return 0;
}

/* One op: create a thread that returns at once, and join it. */
static void *thread_return(void *arg)
{
    return arg;
}

static int run_thread_create_join(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_t t;
        int e = pthread_create(&t, NULL, thread_return, NULL);
        if (e)
            return e;
        e = pthread_join(t, NULL);
        if (e)
            return e;
    }
    return 0;
}

/* Two threads hand a token back and forth through a futex word: one op is
 * a round trip (two wake-ups and two sleeps). */
static int ping_word;
static volatile int ping_stop;

static void futex_wait_for(int *word, int unwanted)
{
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == unwanted)
        syscall(SYS_futex, word, 0 | 128 /* FUTEX_WAIT_PRIVATE */, unwanted, NULL, NULL, 0);
}

static void *ping_partner(void *arg)
{
    (void)arg;
    for (;;) {
        futex_wait_for(&ping_word, 0);
        if (ping_stop)
            return NULL;
        __atomic_store_n(&ping_word, 0, __ATOMIC_RELEASE);
        syscall(SYS_futex, &ping_word, 1 | 128, 1, NULL, NULL, 0);
    }
}

static pthread_t ping_thread;

static int setup_thread_pingpong(void)
{
    ping_word = 0;
    ping_stop = 0;
    return pthread_create(&ping_thread, NULL, ping_partner, NULL) ? -1 : 0;
}

static int run_thread_pingpong(long n)
{
    for (long i = 0; i < n; i++) {
        __atomic_store_n(&ping_word, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &ping_word, 1 | 128, 1, NULL, NULL, 0);
        futex_wait_for(&ping_word, 1);
    }
    return 0;
}

static void teardown_thread_pingpong(void)
{
    ping_stop = 1;
    __atomic_store_n(&ping_word, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &ping_word, 1 | 128, 1, NULL, NULL, 0);
    pthread_join(ping_thread, NULL);
}

/* One op: take a write lock on the whole file and release it. */
static int run_fcntl_lock(long n)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_whence = SEEK_SET;
    for (long i = 0; i < n; i++) {
        fl.l_type = F_WRLCK;
        TRY(fcntl(fd_lock, F_SETLK, &fl));
        fl.l_type = F_UNLCK;
        TRY(fcntl(fd_lock, F_SETLK, &fl));
    }
    return 0;
}

static int run_flock(long n)
{
    for (long i = 0; i < n; i++) {
        TRY(flock(fd_lock, LOCK_EX));
        TRY(flock(fd_lock, LOCK_UN));
    }
    return 0;
}

static int run_getrlimit(long n)
{
    struct rlimit rl;
    /* Raw: musl's getrlimit() calls prlimit64 instead. */
    for (long i = 0; i < n; i++)
        TRY(syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl));
    return 0;
}

static int run_prlimit(long n)
{
    struct rlimit rl;
    for (long i = 0; i < n; i++)
        TRY(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl));
    return 0;
}

/* Child exit codes: 0 is success; 128 + errno says why exec failed. */
static int reap(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return errno;
    if (WIFSIGNALED(st))
        return EFAULT;
    if (WEXITSTATUS(st) >= 128)
        return WEXITSTATUS(st) - 128;
    return WEXITSTATUS(st) ? ECHILD : 0;
}

static int run_fork_exit(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        TRY(pid);
        if (pid == 0)
            _exit(0);
        int e = reap(pid);
        if (e)
            return e;
    }
    return 0;
}

static char *const nop_argv[] = {NOP_PATH, NULL};

/* vfork in a function of its own: the child only execs or exits, and the
 * caller's loop variables never live in the frame the child borrows. */
static __attribute__((noinline)) pid_t vfork_nop(void)
{
    pid_t pid = vfork();
    if (pid == 0) {
        execve(NOP_PATH, nop_argv, child_env);
        _exit(128 + (errno & 127));
    }
    return pid;
}

static int run_vfork_exec(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t pid = vfork_nop();
        TRY(pid);
        int e = reap(pid);
        if (e)
            return e;
    }
    return 0;
}

static int run_fork_exec(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        TRY(pid);
        if (pid == 0) {
            execve(NOP_PATH, nop_argv, child_env);
            _exit(128 + (errno & 127));
        }
        int e = reap(pid);
        if (e)
            return e;
    }
    return 0;
}

static int run_posix_spawn(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t pid;
        int e = posix_spawn(&pid, NOP_PATH, NULL, NULL, nop_argv, child_env);
        if (e)
            return e;
        e = reap(pid);
        if (e)
            return e;
    }
    return 0;
}

/* ---- /proc, as ps and programs that find themselves read it ---- */

static int run_proc_self_exe(long n)
{
    char path[256];
    for (long i = 0; i < n; i++)
        TRY(readlink("/proc/self/exe", path, sizeof path));
    return 0;
}

#define PS_PROCS 100
static pid_t ps_children[PS_PROCS];
static int ps_gate[2] = {-1, -1};

/* 100 processes that wait on a pipe: what `ps` has to walk. */
static int setup_ps(void)
{
    TRY(pipe(ps_gate));
    for (int i = 0; i < PS_PROCS; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            int e = errno;
            ps_children[i] = -1;
            return e;
        }
        if (pid == 0) {
            char c;
            close(ps_gate[1]);
            while (read(ps_gate[0], &c, 1) < 0 && errno == EINTR)
                ;
            _exit(0);
        }
        ps_children[i] = pid;
    }
    return 0;
}

static void teardown_ps(void)
{
    close_fd(&ps_gate[1]);
    close_fd(&ps_gate[0]);
    for (int i = 0; i < PS_PROCS; i++) {
        if (ps_children[i] > 0)
            waitpid(ps_children[i], NULL, 0);
        ps_children[i] = 0;
    }
}

/* One op: what `ps -e` does for the process table: list /proc and read
 * /proc/PID/stat of each of the 100 waiting processes. */
static int run_ps(long n)
{
    char path[64], stat[1024];
    for (long i = 0; i < n; i++) {
        DIR *d = opendir("/proc");
        if (!d)
            return errno ? errno : EIO;
        int seen = 0;
        struct dirent *de;
        while ((de = readdir(d)))
            if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
                seen++;
        closedir(d);
        if (seen < PS_PROCS)
            return ESRCH;
        for (int k = 0; k < PS_PROCS; k++) {
            snprintf(path, sizeof path, "/proc/%d/stat", (int)ps_children[k]);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                return errno;
            ssize_t r = read(fd, stat, sizeof stat);
            int e = r <= 0 ? (r < 0 ? errno : EIO) : 0;
            close(fd);
            if (e)
                return e;
        }
    }
    return 0;
}

/* ---- epoll over loopback TCP: N connections, one ready per round trip ---- */

static int ep_conns;
static int *ep_client; /* our ends */
static pid_t ep_server = -1;

static void teardown_epoll(void)
{
    if (ep_server > 0) {
        kill(ep_server, SIGKILL);
        waitpid(ep_server, NULL, 0);
    }
    ep_server = -1;
    if (ep_client) {
        for (int i = 0; i < ep_conns; i++)
            if (ep_client[i] >= 0)
                close(ep_client[i]);
        free(ep_client);
    }
    ep_client = NULL;
}

/* The server: one epoll set over every accepted connection; each ready
 * connection's byte is echoed back. */
static void epoll_server(const int *srv, int n)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        _exit(1);
    for (int i = 0; i < n; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data = {.fd = srv[i]}};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, srv[i], &ev) < 0)
            _exit(2);
    }
    struct epoll_event evs[16];
    for (;;) {
        int k = epoll_wait(ep, evs, 16, -1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            _exit(3);
        for (int j = 0; j < k; j++) {
            char c;
            if (read(evs[j].data.fd, &c, 1) != 1 || write(evs[j].data.fd, &c, 1) != 1)
                _exit(0);
        }
    }
}

static int setup_epoll_n(int n)
{
    struct rlimit rl = {(rlim_t)n * 2 + 64, (rlim_t)n * 2 + 64};
    struct rlimit cur;
    TRY(getrlimit(RLIMIT_NOFILE, &cur));
    if (cur.rlim_cur < rl.rlim_cur)
        TRY(setrlimit(RLIMIT_NOFILE, &rl));
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0)
        return errno;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    socklen_t alen = sizeof a;
    int e = 0;
    int *srv = calloc((size_t)n, sizeof *srv);
    ep_client = calloc((size_t)n, sizeof *ep_client);
    ep_conns = n;
    if (!srv || !ep_client) {
        e = ENOMEM;
        goto out;
    }
    for (int i = 0; i < n; i++)
        srv[i] = ep_client[i] = -1;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 64) < 0 ||
        getsockname(ls, (struct sockaddr *)&a, &alen) < 0) {
        e = errno;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        int one = 1;
        ep_client[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (ep_client[i] < 0 || connect(ep_client[i], (struct sockaddr *)&a, sizeof a) < 0 ||
            (srv[i] = accept4(ls, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
            setsockopt(ep_client[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0 ||
            setsockopt(srv[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
            e = errno ? errno : EIO;
            goto out;
        }
    }
    ep_server = fork();
    if (ep_server < 0) {
        e = errno;
        goto out;
    }
    if (ep_server == 0) {
        for (int i = 0; i < n; i++)
            close(ep_client[i]);
        close(ls);
        epoll_server(srv, n);
        _exit(0);
    }
out:
    close(ls);
    if (srv) {
        for (int i = 0; i < n; i++)
            if (srv[i] >= 0)
                close(srv[i]);
        free(srv);
    }
    return e;
}

static int setup_epoll_1(void) { return setup_epoll_n(1); }
static int setup_epoll_100(void) { return setup_epoll_n(100); }
static int setup_epoll_1000(void) { return setup_epoll_n(1000); }

/* One op: a byte out on the next connection (round robin) and its echo. */
static int run_epoll(long n)
{
    static int next;
    for (long i = 0; i < n; i++) {
        int fd = ep_client[next];
        next = (next + 1) % ep_conns;
        char c = 'e';
        if (write(fd, &c, 1) != 1)
            return errno ? errno : EPIPE;
        if (read(fd, &c, 1) != 1)
            return errno ? errno : EPIPE;
    }
    return 0;
}

struct micro {
    const char *name;
    int (*setup)(void);
    int (*run)(long n);
    void (*teardown)(void);
    int per_iteration; /* operations per iteration of run(); 0 means 1 */
};

static const struct micro micros[] = {
    {"getpid", NULL, run_getpid, NULL, 0},
    {"getuid", NULL, run_getuid, NULL, 0},
    {"gettid", NULL, run_gettid, NULL, 0},
    {"getpriority", NULL, run_getpriority, NULL, 0},
    {"uname", NULL, run_uname, NULL, 0},
    {"clock_gettime", NULL, run_clock_gettime, NULL, 0},
    {"gettimeofday", NULL, run_gettimeofday, NULL, 0},
    {"read_devzero_1", setup_dev, run_read_devzero, teardown_dev, 0},
    {"write_devnull_1", setup_dev, run_write_devnull, teardown_dev, 0},
    {"read_tmpfs_64", setup_files, run_read_tmpfs, teardown_files, 0},
    {"write_tmpfs_64", setup_files, run_write_tmpfs, teardown_files, 0},
    {"pread_tmpfs_64", setup_files, run_pread, teardown_files, 0},
    {"readv_tmpfs_2x32", setup_files, run_readv, teardown_files, 0},
    {"writev_tmpfs_2x32", setup_files, run_writev, teardown_files, 0},
    {"lseek", setup_files, run_lseek, teardown_files, 0},
    {"open_close", setup_files, run_open_close, teardown_files, 0},
    {"stat", setup_files, run_stat, teardown_files, 0},
    {"fstat", setup_files, run_fstat, teardown_files, 0},
    {"statx", setup_files, run_statx, teardown_files, 0},
    {"readlink", setup_files, run_readlink, teardown_files, 0},
    {"access", setup_files, run_access, teardown_files, 0},
    {"getdents64_100", setup_dir, run_getdents, teardown_dir, 0},
    {"dup_close", setup_files, run_dup_close, teardown_files, 0},
    {"pipe_create", NULL, run_pipe_create, NULL, 0},
    {"pipe_pingpong", setup_pipe_echo, run_pipe_pingpong, stop_echo, 0},
    {"socketpair_pingpong", setup_socketpair, run_socketpair_pingpong, stop_echo, 0},
    {"context_switch", setup_ctxsw, run_pipe_pingpong, teardown_ctxsw, 2},
    {"mmap_munmap_4k", NULL, run_mmap_munmap, NULL, 0},
    {"page_fault", NULL, run_page_fault, NULL, FAULT_PAGES},
    {"mprotect", setup_page, run_mprotect, teardown_page, 0},
    {"brk_grow_shrink", setup_brk, run_brk, NULL, 0},
    {"sched_yield", NULL, run_sched_yield, NULL, 0},
    {"signal_raise", setup_signal, run_signal, teardown_signal, 0},
    {"futex_wake_nowaiter", NULL, run_futex_wake, NULL, 0},
    {"thread_create_join", NULL, run_thread_create_join, NULL, 0},
    {"thread_futex_pingpong", setup_thread_pingpong, run_thread_pingpong, teardown_thread_pingpong, 0},
    {"fcntl_setlk_unlock", setup_files, run_fcntl_lock, teardown_files, 0},
    {"flock_lock_unlock", setup_files, run_flock, teardown_files, 0},
    {"getrlimit", NULL, run_getrlimit, NULL, 0},
    {"prlimit64", NULL, run_prlimit, NULL, 0},
    {"fork_exit_wait", NULL, run_fork_exit, NULL, 0},
    {"vfork_exec_wait", NULL, run_vfork_exec, NULL, 0},
    {"fork_exec_wait", NULL, run_fork_exec, NULL, 0},
    {"posix_spawn_wait", NULL, run_posix_spawn, NULL, 0},
    {"proc_readlink_self_exe", NULL, run_proc_self_exe, NULL, 0},
    {"proc_ps_100", setup_ps, run_ps, teardown_ps, 0},
    {"epoll_tcp_1", setup_epoll_1, run_epoll, teardown_epoll, 0},
    {"epoll_tcp_100", setup_epoll_100, run_epoll, teardown_epoll, 0},
    {"epoll_tcp_1000", setup_epoll_1000, run_epoll, teardown_epoll, 0},
};

/* One round: `n` iterations between two clock readings (or the time the
 * run function measured itself). */
static int round_ns(const struct micro *m, long n, uint64_t *ns)
{
    time_override = UINT64_MAX;
    errno = 0;
    uint64_t t0 = now_ns();
    int e = m->run(n);
    uint64_t t1 = now_ns();
    if (e)
        return e;
    *ns = time_override != UINT64_MAX ? time_override : t1 - t0;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void unsupported(const char *name, const char *why)
{
    say("BENCH %s unsupported %s", name, why);
    n_unsupported++;
}

static void run_micro(const struct micro *m)
{
    const uint64_t target = quick ? 100000 : profile ? 300000000 : 3000000; /* ns per round */
    const int rounds = quick ? 1 : 5;
    int per = m->per_iteration ? m->per_iteration : 1;
    uint64_t t = 0, times[5];
    long n = 1;
    int e = m->setup ? m->setup() : 0;
    if (e) {
        unsupported(m->name, errname(e));
        goto out;
    }
    /* Calibrate: the first round of one op probes support; grow n until a
     * round lasts at least 2/3 of the target, then scale to the target. */
    for (int step = 0;; step++) {
        if ((e = round_ns(m, n, &t))) {
            unsupported(m->name, errname(e));
            goto out;
        }
        if (t * 3 >= target * 2 || step >= 40)
            break;
        long next = t ? (long)((double)n * (double)target / (double)t) : n * 16;
        if (next < n * 2)
            next = n * 2;
        if (next > n * 64)
            next = n * 64;
        n = next;
    }
    if (t > 0) {
        double scaled = (double)n * (double)target / (double)t;
        n = scaled < 1.0 ? 1 : (long)scaled;
    }
    for (int r = 0; r < rounds; r++) {
        if ((e = round_ns(m, n, &times[r]))) {
            unsupported(m->name, errname(e));
            goto out;
        }
    }
    qsort(times, rounds, sizeof times[0], cmp_u64);
    uint64_t median = times[rounds / 2];
    double ops = (double)n * per;
    if (median == 0) {
        /* A clock that did not move is a failed measurement, not a 0. */
        unsupported(m->name, "clock-did-not-advance");
        goto out;
    }
    say("BENCH %s %.1f", m->name, (double)median / ops);
    say("BENCH-DETAIL %s n=%ld ops=%.0f rounds=%d min=%.1f max=%.1f", m->name, n, ops, rounds,
        (double)times[0] / ops, (double)times[rounds - 1] / ops);
    n_ran++;
out:
    if (m->teardown)
        m->teardown();
}

/* ------------------------------------------------------------------ */
/* Workloads: BusyBox commands.                                         */
/* ------------------------------------------------------------------ */

static uint32_t rng_state;

static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) & 0xffffff;
}

static const char *const vocab[] = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
    "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
    "yankee", "zulu", "kernel", "process", "memory", "page", "signal", "pipe",
};
#define VOCAB (sizeof vocab / sizeof vocab[0])

/* Deterministic text: numbered lines of words (`words_per_line` 1 gives a
 * word list for sort | uniq). */
static int gen_text(const char *path, size_t bytes, uint32_t seed, int words_per_line)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errno;
    static char out[16384];
    size_t len = 0, total = 0;
    long line = 0;
    int e = 0;
    rng_state = seed;
    while (total < bytes && !e) {
        char l[256];
        int ll = 0;
        if (words_per_line > 1)
            ll = snprintf(l, sizeof l, "%ld", ++line);
        for (int w = 0; w < words_per_line; w++)
            ll += snprintf(l + ll, sizeof l - ll, "%s%s", ll ? " " : "", vocab[rnd() % VOCAB]);
        l[ll++] = '\n';
        if (len + ll > sizeof out) {
            e = write_all(fd, out, len);
            len = 0;
        }
        memcpy(out + len, l, ll);
        len += ll;
        total += ll;
    }
    if (!e)
        e = write_all(fd, out, len);
    close(fd);
    return e;
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *de;
            char child[512];
            while ((de = readdir(d))) {
                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                    continue;
                snprintf(child, sizeof child, "%s/%s", path, de->d_name);
                remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static size_t scaled(size_t bytes)
{
    return quick ? bytes / 16 : bytes;
}

static int setup_workload_files(void)
{
    char path[256];
    int e;
    remove_tree(WL);
    if (mkdir(WL, 0755) < 0)
        return errno;
    if ((e = gen_text(WL "/text.txt", scaled(256 * 1024), 1, 8)))
        return e;
    if ((e = gen_text(WL "/words.txt", scaled(128 * 1024), 2, 1)))
        return e;
    if ((e = gen_text(WL "/data.txt", scaled(2 * 1024 * 1024), 3, 10)))
        return e;
    /* cp: 50 files of 1 KiB. */
    TRY(mkdir(WL "/src50", 0755));
    for (int i = 0; i < 50; i++) {
        snprintf(path, sizeof path, WL "/src50/file-%02d", i);
        if ((e = gen_text(path, 1024, 100 + i, 6)))
            return e;
    }
    /* find: 10 x 3 directories of 10 files: 300 files, 41 directories. */
    TRY(mkdir(WL "/tree", 0755));
    for (int d = 0; d < 10; d++) {
        snprintf(path, sizeof path, WL "/tree/d%d", d);
        TRY(mkdir(path, 0755));
        for (int s = 0; s < 3; s++) {
            snprintf(path, sizeof path, WL "/tree/d%d/s%d", d, s);
            TRY(mkdir(path, 0755));
            for (int f = 0; f < 10; f++) {
                snprintf(path, sizeof path, WL "/tree/d%d/s%d/f%d", d, s, f);
                if ((e = make_file(path, 16, 'a' + f)))
                    return e;
            }
        }
    }
    /* tar: 32 files of 64 KiB = 2 MiB. */
    TRY(mkdir(WL "/tarsrc", 0755));
    for (int i = 0; i < 32; i++) {
        snprintf(path, sizeof path, WL "/tarsrc/part-%02d", i);
        if ((e = gen_text(path, scaled(64 * 1024), 200 + i, 8)))
            return e;
    }
    return 0;
}

static void prep_cp(void) { remove_tree(WL "/cpdst"); }
static void prep_gzip(void) { unlink(WL "/data.gz"); }
static void prep_tar(void) { unlink(WL "/out.tar"); }
static void prep_dd(void) { unlink(WL "/dd.out"); }

struct workload {
    const char *name;
    const char *shell;        /* run as /bin/sh -c SHELL, or NULL */
    const char *const *argv;  /* exec'd directly when shell is NULL */
    void (*prep)(void);       /* untimed, before every run */
};

static const char *const argv_true[] = {"/bin/true", NULL};
static const char *const argv_sh[] = {"/bin/sh", "-c", ":", NULL};

static const struct workload workloads[] = {
    {"bb_true", NULL, argv_true, NULL},
    {"bb_sh_c", NULL, argv_sh, NULL},
    {"bb_grep_pipe", "cat " WL "/text.txt | grep -e delta | wc -l", NULL, NULL},
    {"bb_sed_pipeline",
     "sed -e 's/alpha/ALPHA/g' " WL "/text.txt | sed -n -e '/bravo/p' | sed -e 's/[0-9]//g' | wc -c",
     NULL, NULL},
    {"bb_sort_uniq", "sort " WL "/words.txt | uniq -c | wc -l", NULL, NULL},
    {"bb_cp_50files", "cp -r " WL "/src50 " WL "/cpdst", NULL, prep_cp},
    {"bb_find_300files", "find " WL "/tree | wc -l", NULL, NULL},
    {"bb_gzip_2mib", "gzip -c " WL "/data.txt > " WL "/data.gz", NULL, prep_gzip},
    {"bb_tar_2mib", "tar -cf " WL "/out.tar -C " WL " tarsrc", NULL, prep_tar},
    /* 64 MiB (1/16 of it in quick mode). */
    {"bb_dd_64mib", NULL, NULL, prep_dd},
};

static char dd_count[32];

/* Runs one workload to completion; returns 0, or why it failed. */
static int run_workload_once(const struct workload *w, uint64_t *ns, char *why, size_t whylen)
{
    const char *dd_argv[] = {"/bin/dd", "if=/dev/zero", "of=" WL "/dd.out", "bs=64k", dd_count, NULL};
    const char *sh_argv[] = {"/bin/sh", "-c", w->shell, NULL};
    const char *const *argv = w->shell ? sh_argv : w->argv ? w->argv : dd_argv;
    if (w->prep)
        w->prep();
    uint64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "%s", errname(errno));
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            if (argv == dd_argv)
                dup2(null, 2); /* dd's transfer statistics */
            if (null > 2)
                close(null);
        }
        chdir(WL);
        execve(argv[0], (char *const *)argv, child_env);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            snprintf(why, whylen, "%s", errname(errno));
            return -1;
        }
    }
    *ns = now_ns() - t0;
    if (WIFSIGNALED(st)) {
        snprintf(why, whylen, "signal-%d", WTERMSIG(st));
        return -1;
    }
    if (WEXITSTATUS(st)) {
        snprintf(why, whylen, "exit-%d", WEXITSTATUS(st));
        return -1;
    }
    return 0;
}

static void run_workloads(int argc, char **names)
{
    snprintf(dd_count, sizeof dd_count, "count=%d", quick ? 64 : 1024);
    int e = setup_workload_files();
    if (e) {
        for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
            unsupported(workloads[i].name, errname(e));
        return;
    }
    const int runs = quick ? 1 : 3;
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
        const struct workload *w = &workloads[i];
        int wanted = argc == 0;
        for (int a = 0; a < argc; a++)
            if (!strcmp(names[a], w->name))
                wanted = 1;
        if (!wanted)
            continue;
        uint64_t times[3];
        char why[64];
        int failed = 0;
        for (int r = 0; r < runs && !failed; r++)
            failed = run_workload_once(w, &times[r], why, sizeof why) != 0;
        if (failed) {
            unsupported(w->name, why);
            continue;
        }
        qsort(times, runs, sizeof times[0], cmp_u64);
        say("BENCH %s %.1f", w->name, (double)times[runs / 2]);
        say("BENCH-DETAIL %s runs=%d min=%.1f max=%.1f", w->name, runs, (double)times[0],
            (double)times[runs - 1]);
        n_ran++;
    }
    remove_tree(WL);
}

int main(int argc, char **argv)
{
    int do_micro = 1, do_work = 1;
    int a = 1;
    for (; a < argc; a++) {
        if (!strcmp(argv[a], "quick"))
            quick = 1;
        else if (!strcmp(argv[a], "profile"))
            profile = 1;
        else if (!strcmp(argv[a], "micro"))
            do_work = 0;
        else if (!strcmp(argv[a], "workloads"))
            do_micro = 0;
        else if (!strcmp(argv[a], "all"))
            ;
        else
            break;
    }
    int nnames = argc - a;
    char **names = argv + a;
    signal(SIGPIPE, SIG_IGN);
    mkdir("/tmp", 01777);
    mkdir(SCRATCH, 0755);
    say("BENCH-START mode=%s", quick ? "quick" : "full");
    if (do_micro) {
        for (size_t i = 0; i < sizeof micros / sizeof micros[0]; i++) {
            int wanted = nnames == 0;
            for (int k = 0; k < nnames; k++)
                if (!strcmp(names[k], micros[i].name))
                    wanted = 1;
            if (wanted)
                run_micro(&micros[i]);
        }
    }
    if (do_work)
        run_workloads(nnames, names);
    remove_tree(SCRATCH);
    say("BENCH-END ran=%d unsupported=%d", n_ran, n_unsupported);
    return 0;
}
