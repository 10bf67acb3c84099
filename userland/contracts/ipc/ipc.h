/* Helpers of the ipc tests: waiting until a child sleeps. */
#ifndef CONTRACTS_IPC_H
#define CONTRACTS_IPC_H
#include "../common.h"
#include <fcntl.h>
#include <time.h>

/* The state letter of /proc/PID/stat ('?' if unreadable). */
static char __attribute__((unused)) proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return '?';
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] ? p[2] : '?';
}

/* Waits (up to 20 s) until `pid` is asleep; returns 1 if it got there. */
static int __attribute__((unused)) wait_sleeping(pid_t pid)
{
    for (int i = 0; i < 2000; i++) {
        if (proc_state(pid) == 'S')
            return 1;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, 0);
    }
    return 0;
}
#endif
