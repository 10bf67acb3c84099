/* timeit: run one application benchmark and print its time (docs/benchmarks.md,
 * "Application benchmarks").
 *
 *     timeit NAME [--ops N] [--timeout S] -- PROGRAM ARG...
 *
 * Runs PROGRAM in its own process group, its standard output to /dev/null
 * and its standard error to /tmp/timeit.err, timed from fork to wait with
 * clock_gettime(CLOCK_MONOTONIC) in the guest (so QEMU's start-up never
 * counts). Prints
 *
 *     BENCH-BEGIN NAME                         before the fork (tools/profile.py
 *                                              samples from there to BENCH NAME)
 *     BENCH NAME <ns>                          the command exited 0
 *     BENCH-DETAIL NAME ops=N                  with --ops (a rate: N requests)
 *     BENCH NAME unsupported exit-N|signal-N|timeout
 *     BENCH-WHY NAME <last line of its standard error>
 *
 * --timeout (seconds of guest time, default 900) kills the whole process
 * group of a workload that hangs, so one failure never stops the others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "say.h"

#define ERR_FILE "/tmp/timeit.err"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The last non-empty line of the workload's standard error, printable. */
static void last_error_line(char *out, size_t len)
{
    static char text[65536];
    out[0] = 0;
    int fd = open(ERR_FILE, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof text - 1 ? size - (off_t)(sizeof text - 1) : 0;
    ssize_t n = pread(fd, text, sizeof text - 1, from);
    close(fd);
    if (n <= 0)
        return;
    text[n] = 0;
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = 0;
    char *start = strrchr(text, '\n');
    start = start ? start + 1 : text;
    size_t k = 0;
    for (char *p = start; *p && k + 1 < len; p++)
        out[k++] = (*p >= 32 && *p < 127) ? *p : '?';
    out[k] = 0;
}

static volatile sig_atomic_t timed_out;
static void on_alarm(int sig)
{
    (void)sig;
    timed_out = 1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        say("usage: timeit NAME [--ops N] [--timeout S] -- PROGRAM ARG...");
        return 2;
    }
    const char *name = argv[1];
    long ops = 0, timeout = 900;
    int a = 2;
    for (; a < argc && strcmp(argv[a], "--"); a++) {
        if (!strcmp(argv[a], "--ops") && a + 1 < argc)
            ops = atol(argv[++a]);
        else if (!strcmp(argv[a], "--timeout") && a + 1 < argc)
            timeout = atol(argv[++a]);
    }
    if (a + 1 >= argc) {
        say("timeit: no command");
        return 2;
    }
    char **cmd = argv + a + 1;
    struct sigaction sa = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &sa, NULL);
    say("BENCH-BEGIN %s", name);
    uint64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        say("BENCH %s unsupported fork-failed", name);
        return 1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int out = open("/dev/null", O_WRONLY);
        int err = open(ERR_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out >= 0)
            dup2(out, 1);
        if (err >= 0)
            dup2(err, 2);
        execvp(cmd[0], cmd);
        _exit(127);
    }
    setpgid(pid, pid);
    alarm((unsigned)timeout);
    int st = 0;
    pid_t r;
    while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR && !timed_out)
        ;
    uint64_t t1 = now_ns();
    if (timed_out) {
        kill(-pid, SIGKILL);
        waitpid(pid, &st, 0);
        say("BENCH %s unsupported timeout", name);
        say("BENCH-WHY %s no exit after %ld s of guest time; killed", name, timeout);
        return 1;
    }
    alarm(0);
    /* Daemons a workload left behind in its group are not ours to keep. */
    kill(-pid, SIGKILL);
    char why[300];
    if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        last_error_line(why, sizeof why);
        if (r < 0)
            say("BENCH %s unsupported wait-failed", name);
        else if (WIFSIGNALED(st))
            say("BENCH %s unsupported signal-%d", name, WTERMSIG(st));
        else
            say("BENCH %s unsupported exit-%d", name, WEXITSTATUS(st));
        say("BENCH-WHY %s %s", name, why[0] ? why : "(nothing on standard error)");
        return 1;
    }
    if (t1 <= t0) {
        say("BENCH %s unsupported clock-did-not-advance", name);
        return 1;
    }
    say("BENCH %s %llu", name, (unsigned long long)(t1 - t0));
    if (ops > 0)
        say("BENCH-DETAIL %s ops=%ld", name, ops);
    return 0;
}
