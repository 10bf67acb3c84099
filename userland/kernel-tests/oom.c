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

static unsigned long free_ram(void)
{
    struct sysinfo si;
    sysinfo(&si);
    return si.freeram * si.mem_unit;
}

static unsigned long total_ram(void)
{
    struct sysinfo si;
    sysinfo(&si);
    return si.totalram * si.mem_unit;
}

static int failures;

static void fail(const char *mode, const char *what, long a, long b)
{
    printf("OOM-CHECK %s FAILED: %s (%ld, %ld)\n", mode, what, a, b);
    fflush(stdout);
    failures++;
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
    else
        fail(mode, "unknown mode", 0, 0);
    if (!failures)
        printf("OOM-CHECK %s ok\n", mode);
    fflush(stdout);
    if (getpid() == 1)
        reboot(RB_POWER_OFF);
    return failures != 0;
}
