/* contract-init: PID 1 of the contract-test initramfs.
 *
 * Runs every test named in /contracts/list (one absolute path per line, in
 * order), each in a fresh process that is its own session, with stdout and
 * stderr on a pipe, cwd in an empty scratch directory /tmp/scratch-<area>-<name>
 * and a fixed environment. For each test it prints
 *
 *     === CONTRACT <area>/<name>
 *     <the test's output>
 *     === END <area>/<name> status=<exit N | signal NAME>
 *
 * then `=== ALL DONE`, syncs and powers off. Only these blocks are compared
 * between Linux and Kevlar (tools/contracts.py), so this program prints
 * nothing else, even when a mount fails.
 *
 * When it is not PID 1 (run by hand, or in a pid namespace for debugging)
 * it exits at the end instead of powering off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIST_FILE "/contracts/list"
#define PREFIX "/contracts/"
#define OUTPUT_LIMIT (64 * 1024)
/* Per test, in guest time (which keeps real time). Tests take well under a
 * second on an idle host, the longest Debian scripts a few seconds; a
 * loaded CI host can make them ten times slower and more, so the limit only
 * catches hangs. */
#define TIMEOUT_S 300
#define TIMEOUT_MS (TIMEOUT_S * 1000)

static char *const test_env[] = {
    "PATH=/bin:/sbin:/usr/bin:/usr/sbin",
    "HOME=/",
    "TERM=dumb",
    "LANG=C",
    NULL,
};

static void put(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= w;
    }
}

static void puts1(const char *s) { put(s, strlen(s)); }

static const char *sig_name(int s)
{
    static const char *names[] = {
        [SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT",
        [SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
        [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL",
        [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
        [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
        [SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",
        [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",
        [SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
        [SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
        [SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR",
        [SIGSYS] = "SIGSYS",
    };
    static char buf[24];
    if (s > 0 && s < (int)(sizeof names / sizeof names[0]) && names[s])
        return names[s];
    snprintf(buf, sizeof buf, "%d", s);
    return buf;
}

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Remove a directory tree (scratch dirs of earlier tests), best effort. */
static void remove_tree(const char *path);

static void setup(void)
{
    /* Our console: the kernel normally opens /dev/console as fd 0, 1, 2. */
    int have_console = fcntl(1, F_GETFD) >= 0;
    mkdir("/dev", 0755);
    mkdir("/proc", 0555);
    mkdir("/tmp", 01777);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    /* Pseudo-terminals for the tty tests: /dev/ptmx finds its devpts here. */
    mkdir("/dev/pts", 0755);
    mount("devpts", "/dev/pts", "devpts", 0, "mode=620,ptmxmode=666");
    mount("proc", "/proc", "proc", 0, NULL);
    mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
    if (!have_console) {
        int fd = open("/dev/console", O_RDWR | O_NOCTTY);
        if (fd >= 0) {
            if (fd != 1)
                dup2(fd, 1);
            if (fd != 2)
                dup2(fd, 2);
            if (fd > 2)
                close(fd);
        }
    }
    chdir("/");
    umask(022);
}

static void reap_all(void)
{
    int st;
    while (waitpid(-1, &st, WNOHANG) > 0)
        ;
}

/* Run one test; print its block. */
static void run_test(const char *path)
{
    const char *name = path;
    if (strncmp(name, PREFIX, strlen(PREFIX)) == 0)
        name += strlen(PREFIX);

    char scratch[512];
    snprintf(scratch, sizeof scratch, "/tmp/scratch-%s", name);
    for (char *p = scratch + strlen("/tmp/scratch-"); *p; p++)
        if (*p == '/')
            *p = '-';
    remove_tree(scratch);
    mkdir(scratch, 0755);

    char header[600];
    snprintf(header, sizeof header, "=== CONTRACT %s\n", name);

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        puts1(header);
        puts1("(contract-init: pipe failed)\n");
        dprintf(1, "=== END %s status=exit 255\n", name);
        return;
    }
    /* stdin: /dev/null, or an empty pipe at EOF if there is no /dev/null
     * (so the test's fd numbers are the same either way). */
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        int e[2];
        if (pipe2(e, O_CLOEXEC) == 0) {
            close(e[1]);
            in = e[0];
        }
    }

    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        if (chdir(scratch) < 0)
            chdir("/tmp");
        if (in >= 0)
            dup2(in, 0);
        else
            close(0);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        /* Nothing but 0, 1, 2 leaks into the test. */
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int s = 1; s < 65; s++)
            signal(s, SIG_DFL);
        char *argv[] = {(char *)path, NULL};
        execve(path, argv, test_env);
        dprintf(1, "(contract-init: execve %s failed: errno %d)\n", path, errno);
        _exit(127);
    }
    close(pfd[1]);
    if (in >= 0)
        close(in);
    if (pid < 0) {
        puts1(header);
        puts1("(contract-init: fork failed)\n");
        dprintf(1, "=== END %s status=exit 255\n", name);
        close(pfd[0]);
        return;
    }

    static char buf[OUTPUT_LIMIT + 1];
    size_t len = 0;
    int truncated = 0, timed_out = 0, exited = 0, status = 0, eof = 0;
    long long deadline = mono_ms() + TIMEOUT_MS;
    fcntl(pfd[0], F_SETFL, O_NONBLOCK);

    for (;;) {
        if (!exited) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid)
                exited = 1;
        }
        if (exited && eof)
            break;
        long long left = deadline - mono_ms();
        if (left <= 0) {
            if (!exited) {
                timed_out = 1;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                    ;
                exited = 1;
            }
            break;
        }
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        int wait_ms = exited ? 50 : 20;
        if (!eof) {
            int n = poll(&p, 1, wait_ms);
            if (n > 0) {
                for (;;) {
                    char tmp[4096];
                    ssize_t r = read(pfd[0], tmp, sizeof tmp);
                    if (r > 0) {
                        size_t room = OUTPUT_LIMIT - len;
                        size_t take = (size_t)r < room ? (size_t)r : room;
                        memcpy(buf + len, tmp, take);
                        len += take;
                        if (take < (size_t)r)
                            truncated = 1;
                        continue;
                    }
                    if (r == 0)
                        eof = 1;
                    break;
                }
            } else if (n == 0 && exited) {
                /* The test is gone but something it started still holds the
                 * pipe open: what has been written so far is the output. */
                break;
            }
        } else {
            struct timespec ts = {0, wait_ms * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    close(pfd[0]);
    /* Leftovers of the test's session, and orphans reparented to us. */
    kill(-pid, SIGKILL);
    reap_all();

    puts1(header);
    put(buf, len);
    if (len > 0 && buf[len - 1] != '\n')
        puts1("\n");
    if (truncated)
        puts1("(contract-init: output truncated at 64 KiB)\n");
    if (timed_out)
        dprintf(1, "(contract-init: killed after %d s)\n", TIMEOUT_S);
    char end[600];
    if (WIFEXITED(status))
        snprintf(end, sizeof end, "=== END %s status=exit %d\n", name, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(end, sizeof end, "=== END %s status=signal %s\n", name,
                 sig_name(WTERMSIG(status)));
    else
        snprintf(end, sizeof end, "=== END %s status=unknown 0x%x\n", name, status);
    puts1(end);
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    /* Tests leave small trees; a fixed-depth recursion through getdents is
     * more than we need: use opendir-free raw reads via readdir. */
    chmod(path, 0700);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        char dents[4096];
        for (;;) {
            long n = syscall(SYS_getdents64, fd, dents, sizeof dents);
            if (n <= 0)
                break;
            for (long off = 0; off < n;) {
                unsigned short reclen = *(unsigned short *)(dents + off + 16);
                const char *nm = dents + off + 19;
                if (strcmp(nm, ".") && strcmp(nm, "..")) {
                    char child[1024];
                    snprintf(child, sizeof child, "%s/%s", path, nm);
                    remove_tree(child);
                }
                off += reclen;
            }
        }
        close(fd);
    }
    rmdir(path);
}

int main(void)
{
    int is_init = getpid() == 1;
    setup();

    int fd = open(LIST_FILE, O_RDONLY | O_CLOEXEC);
    static char list[256 * 1024];
    size_t len = 0;
    if (fd >= 0) {
        for (;;) {
            ssize_t r = read(fd, list + len, sizeof list - 1 - len);
            if (r <= 0)
                break;
            len += r;
        }
        close(fd);
    } else {
        puts1("(contract-init: cannot open " LIST_FILE ")\n");
    }
    list[len] = 0;

    for (char *line = list; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (*line && *line != '#')
            run_test(line);
        line = nl ? nl + 1 : NULL;
    }
    puts1("=== ALL DONE\n");
    sync();
    if (is_init) {
        reboot(RB_POWER_OFF);
        /* Still here: nothing more to do but not exit (PID 1 must not). */
        for (;;)
            pause();
    }
    return 0;
}
