/* What the memory-exhaustion kernel tests (oom.c, objects.c) share: free
 * and total RAM, a failure line with the program's own marker, and the
 * check that root can still fork and read after a test pushed memory to
 * its end. Define CHECK_MARKER ("OOM-CHECK"...) before including. */
#ifndef KEVLAR_MEMCHECK_H
#define KEVLAR_MEMCHECK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

static int failures;

static void fail(const char *mode, const char *what, long a, long b)
{
    printf(CHECK_MARKER " %s FAILED: %s (%ld, %ld)\n", mode, what, a, b);
    fflush(stdout);
    failures++;
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

/* Whether root can still fork, and read a file through a 64 KiB buffer. */
static void check_alive(const char *mode)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    if (p < 0)
        fail(mode, "root cannot fork (errno)", errno, 0);
    else
        waitpid(p, NULL, 0);
    static char big[65536];
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0 || read(fd, big, sizeof big) <= 0)
        fail(mode, "root cannot read /proc/self/maps (errno)", errno, 0);
    close(fd);
}

#endif
