/* Kevlar-only test: kernel objects of a fixed size that users make and
 * keep, made until the heap cannot have more (-m 256M, run as PID 1:
 * `init=/objects -- MODE`):
 *
 *   fds      uid 1000..1031 (one process each, RLIMIT_NOFILE raised to
 *            1<<20 by root first) make eventfds and put each in an epoll
 *            instance: open files, descriptor slots and epoll items
 *   timers   the same users make 500 POSIX timers each, and eventfds;
 *            once the heap says no, one more timer_create (ENOMEM, EAGAIN
 *            or a timer)
 *   dup      the same users dup2 onto descriptor numbers up to 1<<20
 *            (descriptor tables of 24 MiB each)
 *
 * Each maker stops at its first error and reports it: ENOMEM (the heap is
 * down to half its reserve), EMFILE, or EAGAIN (the timer limit); or the
 * OOM killer ends it. Any other result fails. Then the kernel must still
 * be up (root forks and reads a file), every maker is killed and reaped,
 * and MemFree must come back within 0.5% of RAM of where it was.
 * Prints `OBJECTS-CHECK <mode> ok` or what went wrong. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#define CHECK_MARKER "OBJECTS-CHECK"
#include "memcheck.h"

#define MAKERS 32

/* One byte per maker: 'M' ENOMEM, 'F' EMFILE/ENFILE, 'A' EAGAIN, 'X'
   anything else; then it waits to be killed. */
static void report(int fd, int err)
{
    char c = err == 0 ? 'C' : err == ENOMEM ? 'M' : (err == EMFILE || err == ENFILE) ? 'F' : err == EAGAIN ? 'A' : 'X';
    if (c == 'X') {
        printf("maker %d: errno %d\n", getpid(), err);
        fflush(stdout);
    }
    write(fd, &c, 1);
    for (;;)
        pause();
}

/* In the warm-up round a maker stops after this many objects ('C'). */
static int cap;

static void maker(const char *mode, int out, int id)
{
    struct rlimit big = {1 << 20, 1 << 20};
    setrlimit(RLIMIT_NOFILE, &big);
    setgroups(0, NULL);
    if (setgid(1000 + id) != 0 || setuid(1000 + id) != 0)
        _exit(9);
    if (!strcmp(mode, "fds")) {
        int ep = -1;
        for (int i = 0;; i++) {
            /* An epoll instance per 256 items (epoll_ctl looks at all of
               an instance's items on each ADD). */
            if (i % 256 == 0 && (ep = epoll_create1(0)) < 0)
                report(out, errno);
            if (cap && i >= cap)
                report(out, 0);
            int fd = eventfd(0, 0);
            if (fd < 0)
                report(out, errno);
            struct epoll_event ev = {.events = EPOLLIN, .data.u64 = fd};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
                report(out, errno);
        }
    } else if (!strcmp(mode, "timers")) {
        int limited = 0;
        for (int i = 0;; i++) {
            timer_t t;
            if (cap && i >= cap)
                report(out, 0);
            /* Timers up to RLIMIT_SIGPENDING's default (EAGAIN, as Linux),
               then descriptors alone until the heap says no. */
            if (!limited && syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &t) != 0) {
                if (errno != EAGAIN)
                    report(out, errno);
                limited = 1;
            }
            if (i == 500)
                limited = 1; /* Kevlar's timer_create looks at every timer */
            if (eventfd(0, 0) < 0) {
                int e = errno;
                /* The heap is low: one more timer fails as Linux's, or fits. */
                if (syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &t) != 0 && errno != ENOMEM &&
                    errno != EAGAIN)
                    report(out, errno);
                report(out, e);
            }
        }
    } else {
        for (int n = 1 << 20; n > 3; n -= 4096 + id) {
            if (cap && n < (1 << 20) - 4096 * 8)
                report(out, 0);
            if (dup2(0, n - 1) < 0)
                report(out, errno);
        }
        report(out, EMFILE);
    }
}

static void run(const char *mode)
{
    /* A small round first (each maker stops after a few hundred objects),
       so caches that stay have their size; then the real one. */
    for (int round = 0; round < 2; round++) {
        cap = round == 0 ? 300 : 0;
        unsigned long before = free_ram();
        int p[2];
        pipe(p);
        pid_t kids[MAKERS];
        for (int i = 0; i < MAKERS; i++) {
            kids[i] = fork();
            if (kids[i] == 0) {
                close(p[0]);
                maker(mode, p[1], i);
                _exit(8);
            }
        }
        close(p[1]);
        fcntl(p[0], F_SETFL, O_NONBLOCK);
        int counts[5] = {0}, killed = 0, other = 0, done = 0;
        for (int tick = 0; tick < 2400 && done < MAKERS; tick++) {
            char b[64];
            int n = read(p[0], b, sizeof b);
            for (int i = 0; i < n; i++) {
                counts[b[i] == 'M' ? 0 : b[i] == 'F' ? 1 : b[i] == 'A' ? 2 : b[i] == 'C' ? 4 : 3]++;
                done++;
            }
            int st;
            pid_t w;
            while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
                if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
                    killed++;
                else
                    other++;
                done++;
            }
            usleep(50000);
        }
        printf("objects %s round %d: ENOMEM %d, EMFILE %d, EAGAIN %d, killed %d, other %d, MemFree %lu kB\n",
               mode, round, counts[0], counts[1], counts[2], killed, other + counts[3], free_ram() / 1024);
        fflush(stdout);
        if (done < MAKERS)
            fail(mode, "makers neither finished nor died in 120 s (done, of)", done, MAKERS);
        if (other || counts[3])
            fail(mode, "a maker failed otherwise (count)", other + counts[3], 0);
        if (round == 1 && counts[0] + killed == 0 && strcmp(mode, "dup"))
            fail(mode, "memory never ran out", counts[1], counts[2]);
        check_alive(mode);
        for (int i = 0; i < MAKERS; i++)
            kill(kids[i], SIGKILL);
        while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
            ;
        close(p[0]);
        if (round == 0)
            continue;
        long allowed = (long)(total_ram() / 200), diff = 0;
        for (int i = 0; i < 100; i++) {
            usleep(20000);
            diff = (long)before - (long)free_ram();
            if (diff <= allowed)
                break;
        }
        if (diff > allowed)
            fail(mode, "free memory did not come back (KiB short, KiB allowed)", diff / 1024, allowed / 1024);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fds";
    mkdir("/proc", 0555);
    mount("proc", "/proc", "proc", 0, NULL);
    /* The makers must meet the heap's limit, not fs.file-max (a tenth of
       RAM in KiB by default, as Linux's, which stops users' open files
       first at -m 256M): root lifts it. */
    int fm = open("/proc/sys/fs/file-max", O_WRONLY);
    if (fm < 0 || write(fm, "1073741824\n", 11) != 11)
        fail(mode, "cannot raise fs.file-max", errno, 0);
    if (fm >= 0)
        close(fm);
    if (strcmp(mode, "fds") && strcmp(mode, "timers") && strcmp(mode, "dup"))
        fail(mode, "unknown mode", 0, 0);
    else
        run(mode);
    if (!failures)
        printf("OBJECTS-CHECK %s ok\n", mode);
    fflush(stdout);
    if (getpid() == 1)
        reboot(RB_POWER_OFF);
    return failures != 0;
}
