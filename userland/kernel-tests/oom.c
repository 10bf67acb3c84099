/* Kevlar-only tests of memory exhaustion (Linux's free memory moves with
 * its caches, so only Kevlar is held to these numbers). Run as PID 1 with
 * one mode per boot (`init=/oom -- MODE`), under -m 256M:
 *
 *   hog       a child touches memory until the OOM killer ends it, twice:
 *             the parent sees SIGKILL, the kernel log has Linux's
 *             "Out of memory: Killed process N (oom-hog)" line, a bystander
 *             with oom_score_adj -1000 survives, free memory comes back.
 *   forkbomb  a fork bomb as uid 1000 under RLIMIT_NPROC: every fork past
 *             the limit fails with EAGAIN, the bomb is killed and reaped,
 *             free memory comes back, root can still fork.
 *   rootbomb  a fork bomb as root (exempt from RLIMIT_NPROC) for five
 *             seconds, twice: threads-max and memory stop it, never the
 *             kernel.
 *   forkexec  10,000 fork+exec cycles, 50 children at a time, give every
 *             page back (kernel stacks and heap pages of the peak too).
 *   procs     200 processes of 1 MiB each, alive together, then gone.
 *   pipes     six processes of six users (uid 1000 to 1005, each under
 *             pipe-user-pages-soft's 64 MiB) fill pipes of up to 1 MiB
 *             (over 400 MiB asked for): the kernel heap runs out, writes fail with
 *             ENOMEM or the OOM killer ends fillers (their pipe buffers
 *             count in their badness), never init and never the kernel;
 *             root can still fork and read; free memory comes back.
 *   tmpfs     uid 1000 fills a tmpfs mounted without size=: it stops at
 *             ENOSPC with half of RAM still free (Linux's default size);
 *             a memory hog after it is the one the OOM killer ends.
 *
 * "Comes back" means within 0.5% of RAM of where it was before (after a
 * small warm-up, so bounded caches have their size). Prints
 * `OOM-CHECK <mode> ok` or what went wrong. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <grp.h>

#define CHECK_MARKER "OOM-CHECK"
#include "memcheck.h"

/* Memory the compiler cannot optimise away: mapped and touched through a
 * volatile pointer. */
static volatile char *touch(size_t len, char value)
{
    volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    for (size_t i = 0; i < len; i += 4096)
        p[i] = value;
    return p;
}

/* Free memory within 0.5% of RAM of `before`. */
static void check_back(const char *mode, unsigned long before)
{
    /* Reaped children's memory is freed at once, but a CPU may still be
     * leaving a dead task (its kernel stack goes when it has): allow a
     * second for that. */
    long allowed = (long)(total_ram() / 200);
    long diff = 0;
    for (int i = 0; i < 50; i++) {
        usleep(20000);
        diff = (long)before - (long)free_ram();
        if (diff <= allowed)
            break;
    }
    if (diff > allowed) {
        fail(mode, "free memory did not come back (KiB short, KiB allowed)", diff / 1024, allowed / 1024);
        char buf[4096];
        int fd = open("/proc/meminfo", O_RDONLY);
        int n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
        if (n > 0) {
            buf[n] = 0;
            printf("%s", buf);
        }
        printf("MemFree before: %lu kB\n", before / 1024);
        fflush(stdout);
    }
}

static void reap_all(void)
{
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
        ;
}

static void write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd >= 0) {
        write(fd, text, strlen(text));
        close(fd);
    }
}

/* ---- hog ---- */

static void hog_child(void)
{
    int fd = open("/proc/self/comm", O_WRONLY);
    write(fd, "oom-hog", 7);
    close(fd);
    for (;;)
        touch(1 << 20, 1);
}

static int log_has(const char *needle)
{
    static char buf[1 << 17];
    int n = klogctl(3, buf, sizeof buf - 1);
    if (n < 0)
        return 0;
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

static void run_hog(void)
{
    /* A bystander that holds 8 MiB and may never be picked. */
    int bp[2];
    pipe(bp);
    pid_t bystander = fork();
    if (bystander == 0) {
        write_file("/proc/self/oom_score_adj", "-1000");
        volatile char *p = touch(8 << 20, 2);
        char c;
        read(bp[0], &c, 1);
        _exit(p && p[4096 * 5] == 2 ? 7 : 8);
    }
    close(bp[0]);
    usleep(50000);
    unsigned long before = 0;
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            before = free_ram(); /* after one round: caches warmed */
        pid_t pid = fork();
        if (pid == 0)
            hog_child();
        int status;
        waitpid(pid, &status, 0);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
            fail("hog", "the hog did not end by SIGKILL (status)", status, round);
        char needle[64];
        snprintf(needle, sizeof needle, "Out of memory: Killed process %d (oom-hog)", pid);
        if (!log_has(needle))
            fail("hog", "no 'Out of memory: Killed process' line for the hog (pid, round)", pid, round);
    }
    check_back("hog", before);
    if (kill(bystander, 0) != 0)
        fail("hog", "the oom_score_adj -1000 bystander is gone", errno, 0);
    write(bp[1], "x", 1);
    int status;
    waitpid(bystander, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 7)
        fail("hog", "the bystander did not end well (status)", status, 0);
}

/* ---- forkbomb ---- */

#define NPROC_LIMIT 300

static void run_forkbomb(void)
{
    int report[2];
    pipe(report);
    unsigned long before = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            before = free_ram();
        pid_t bomb = fork();
        if (bomb == 0) {
            struct rlimit rl = {NPROC_LIMIT, NPROC_LIMIT};
            setrlimit(RLIMIT_NPROC, &rl);
            setgid(1000);
            if (setuid(1000) != 0)
                _exit(9);
            close(report[0]);
            for (;;) {
                pid_t p = fork();
                if (p < 0) {
                    char c = errno == EAGAIN ? 'E' : 'X';
                    write(report[1], &c, 1);
                    for (;;)
                        pause();
                }
            }
        }
        /* Every bomb process ends up refused once: NPROC_LIMIT reports. */
        int eagain = 0, other = 0;
        while (eagain + other < NPROC_LIMIT) {
            char buf[64];
            int n = read(report[0], buf, sizeof buf);
            if (n <= 0)
                break;
            for (int i = 0; i < n; i++)
                buf[i] == 'E' ? eagain++ : other++;
        }
        if (eagain != NPROC_LIMIT || other != 0)
            fail("forkbomb", "forks past RLIMIT_NPROC did not all fail with EAGAIN (EAGAIN, other)", eagain, other);
        /* No more processes than the limit. */
        int count = 0;
        DIR *proc = opendir("/proc");
        struct dirent *e;
        while (proc && (e = readdir(proc)))
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
                count++;
        if (proc)
            closedir(proc);
        count -= 1; /* init */
        if (count > NPROC_LIMIT)
            fail("forkbomb", "more processes than the limit (count, limit)", count, NPROC_LIMIT);
        kill(-1, SIGKILL);
        reap_all();
    }
    check_back("forkbomb", before);
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    if (p < 0)
        fail("forkbomb", "root cannot fork after the bomb", errno, 0);
    reap_all();
}

/* ---- rootbomb ---- */

/* A fork bomb as root (exempt from RLIMIT_NPROC): threads-max or memory
 * stops it (EAGAIN or ENOMEM, perhaps the OOM killer); after five seconds
 * it is killed and reaped, and the system goes on. */
static void rootbomb_round(void)
{
    pid_t bomb = fork();
    if (bomb == 0) {
        setpgid(0, 0);
        /* Each process stops once refused (a bomb that keeps every
         * process runnable only measures the scheduler). */
        for (;;) {
            pid_t p = fork();
            if (p < 0)
                for (;;)
                    pause();
        }
    }
    sleep(5);
    struct sysinfo si;
    sysinfo(&si);
    printf("rootbomb: %d processes after 5 s\n", si.procs);
    fflush(stdout);
    kill(-bomb, SIGKILL);
    reap_all();
    /* Some may have been between fork and setpgid's group: once more. */
    kill(-1, SIGKILL);
    reap_all();
}

static void run_rootbomb(void)
{
    /* The baseline after one round: the heap's pages hold the objects of
     * the first burst that outlive it (fragmentation), which a second
     * burst must not add to. */
    rootbomb_round();
    unsigned long before = free_ram();
    rootbomb_round();
    check_back("rootbomb", before);
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    if (p < 0)
        fail("rootbomb", "cannot fork after the bomb", errno, 0);
    reap_all();
}

/* ---- forkexec ---- */

/* n fork+exec cycles, `batch` children alive at a time. */
static void cycles(const char *self, int n, int batch)
{
    for (int i = 0; i < n; i += batch) {
        for (int k = 0; k < batch; k++) {
            pid_t pid = fork();
            if (pid == 0) {
                execl(self, self, "child", (char *)0);
                _exit(4);
            }
            if (pid < 0) {
                fail("forkexec", "fork failed (errno, cycle)", errno, i + k);
                return;
            }
        }
        for (int k = 0; k < batch; k++) {
            int status;
            wait(&status);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 3) {
                fail("forkexec", "bad child status (status, cycle)", status, i + k);
                return;
            }
        }
    }
}

static void run_forkexec(const char *self)
{
    cycles(self, 20, 1); /* the program's pages are in the page cache */
    unsigned long before = free_ram();
    cycles(self, 10000, 50);
    check_back("forkexec", before);
}

/* ---- procs ---- */

static void procs(int n)
{
    int go[2];
    pipe(go);
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(go[1]);
            volatile char *p = touch(1 << 20, 3);
            char c;
            read(go[0], &c, 1); /* EOF when the parent lets go */
            _exit(p && p[4096] == 3 ? 0 : 1);
        }
        if (pid < 0) {
            fail("procs", "fork failed (errno, i)", errno, i);
            break;
        }
    }
    close(go[0]);
    usleep(100000);
    close(go[1]);
    reap_all();
}

static void run_procs(void)
{
    procs(20);
    unsigned long before = free_ram();
    procs(200);
    check_back("procs", before);
}

/* ---- pipes ---- */

#define FILLERS 6

static void drop_to_uid(uid_t id)
{
    setgroups(0, NULL);
    if (setgid(id) != 0 || setuid(id) != 0)
        _exit(9);
}

static void drop_to_user(void)
{
    drop_to_uid(1000);
}

/* Fills pipes of 1 MiB until out of descriptors or memory; reports 'M'
 * when a write failed with ENOMEM, 'F' when it ran out of descriptors
 * first, 'X' on another error; then waits to be killed. */
static void pipe_filler(int report, uid_t id)
{
    static char chunk[65536];
    memset(chunk, 'p', sizeof chunk);
    int fd = open("/proc/self/comm", O_WRONLY);
    write(fd, "pipe-filler", 11);
    close(fd);
    drop_to_uid(id);
    char verdict = 'F';
    for (;;) {
        int p[2];
        if (pipe(p) != 0) {
            verdict = errno == EMFILE || errno == ENFILE ? 'F' : errno == ENOMEM ? 'M' : 'X';
            break;
        }
        fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
        fcntl(p[1], F_SETFL, O_NONBLOCK);
        ssize_t n;
        while ((n = write(p[1], chunk, sizeof chunk)) > 0)
            ;
        if (errno == ENOMEM) {
            verdict = 'M';
            break;
        }
        if (errno != EAGAIN) {
            verdict = 'X';
            break;
        }
    }
    write(report, &verdict, 1);
    for (;;)
        pause();
}

static void run_pipes(void)
{
    unsigned long before = free_ram();
    int report[2];
    pipe(report);
    pid_t kids[FILLERS];
    for (int i = 0; i < FILLERS; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            close(report[0]);
            pipe_filler(report[1], 1000 + i);
        }
    }
    close(report[1]);
    fcntl(report[0], F_SETFL, O_NONBLOCK);
    int enomem = 0, nofds = 0, other = 0, killed = 0, done = 0;
    for (int tick = 0; tick < 1200 && done < FILLERS; tick++) {
        char buf[16];
        int n = read(report[0], buf, sizeof buf);
        for (int i = 0; i < n; i++) {
            buf[i] == 'M' ? enomem++ : buf[i] == 'F' ? nofds++ : other++;
            done++;
        }
        int status;
        pid_t p;
        while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
            if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
                killed++;
            else
                other++;
            done++;
        }
        usleep(50000);
    }
    printf("pipes: %d fillers saw ENOMEM, %d ran out of fds, %d killed by the OOM killer, %d other\n",
           enomem, nofds, killed, other);
    fflush(stdout);
    if (done < FILLERS)
        fail("pipes", "fillers neither finished nor died in 60 s (done, of)", done, FILLERS);
    if (other)
        fail("pipes", "a filler failed otherwise (count)", other, 0);
    if (enomem + killed == 0)
        fail("pipes", "memory never ran out (3 GiB of pipes fit?)", nofds, 0);
    if (killed && !log_has("Killed process"))
        fail("pipes", "no OOM killer line in the log", killed, 0);
    check_alive("pipes");
    for (int i = 0; i < FILLERS; i++)
        kill(kids[i], SIGKILL);
    reap_all();
    close(report[0]);
    check_back("pipes", before);
}

/* ---- tmpfs ---- */

static void run_tmpfs(void)
{
    mkdir("/fill", 0777);
    if (mount("tmpfs", "/fill", "tmpfs", 0, NULL) != 0) {
        fail("tmpfs", "mount (errno)", errno, 0);
        return;
    }
    chmod("/fill", 01777);
    unsigned long before = free_ram();
    int report[2];
    pipe(report);
    pid_t filler = fork();
    if (filler == 0) {
        static char chunk[1 << 20];
        memset(chunk, 't', sizeof chunk);
        drop_to_user();
        int fd = open("/fill/big", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        long mib = 0;
        int err = 0;
        for (;;) {
            ssize_t n = write(fd, chunk, sizeof chunk);
            if (n < 0) {
                err = errno;
                break;
            }
            mib++;
        }
        long out[2] = {mib, err};
        write(report[1], out, sizeof out);
        _exit(0);
    }
    long got[2] = {0, 0};
    int status = 0;
    read(report[0], got, sizeof got);
    waitpid(filler, &status, 0);
    printf("tmpfs: uid 1000 wrote %ld MiB, then errno %ld\n", got[0], got[1]);
    fflush(stdout);
    if (WIFSIGNALED(status))
        fail("tmpfs", "the filler was killed (signal)", WTERMSIG(status), 0);
    if (got[1] != ENOSPC)
        fail("tmpfs", "filling tmpfs did not end with ENOSPC (errno, MiB)", got[1], got[0]);
    if (free_ram() < total_ram() / 3)
        fail("tmpfs", "a full tmpfs left less than a third of RAM free (KiB free, KiB total)",
             (long)(free_ram() / 1024), (long)(total_ram() / 1024));
    /* Then a hog as uid 1000: the OOM killer ends it, not init. */
    pid_t hog = fork();
    if (hog == 0) {
        drop_to_user();
        hog_child();
    }
    waitpid(hog, &status, 0);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
        fail("tmpfs", "the hog was not killed by SIGKILL (status)", status, 0);
    check_alive("tmpfs");
    unlink("/fill/big");
    check_back("tmpfs", before);
    umount("/fill");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return 3;
    const char *mode = argc > 1 ? argv[1] : "hog";
    mkdir("/proc", 0555);
    mount("proc", "/proc", "proc", 0, NULL);
    if (strcmp(mode, "hog") == 0)
        run_hog();
    else if (strcmp(mode, "forkbomb") == 0)
        run_forkbomb();
    else if (strcmp(mode, "rootbomb") == 0)
        run_rootbomb();
    else if (strcmp(mode, "forkexec") == 0)
        run_forkexec(argv[0]);
    else if (strcmp(mode, "procs") == 0)
        run_procs();
    else if (strcmp(mode, "pipes") == 0)
        run_pipes();
    else if (strcmp(mode, "tmpfs") == 0)
        run_tmpfs();
    else
        fail(mode, "unknown mode", 0, 0);
    if (!failures)
        printf("OOM-CHECK %s ok\n", mode);
    fflush(stdout);
    if (getpid() == 1)
        reboot(RB_POWER_OFF);
    return failures != 0;
}
