/* Shared helpers of the ptrace tests: musl has <sys/ptrace.h> and
 * <sys/user.h>; wait statuses are printed decoded, events by name. */
#ifndef CONTRACTS_PTRACE_H
#define CONTRACTS_PTRACE_H
#include "../common.h"
#include <sys/ptrace.h>
#include <sys/user.h>
#include <stddef.h>

#ifndef PTRACE_GET_SYSCALL_INFO
#define PTRACE_GET_SYSCALL_INFO 0x420e
#endif

static const char *event_name(int e) __attribute__((unused));
static const char *event_name(int e)
{
    switch (e) {
    case 0: return "none";
    case PTRACE_EVENT_FORK: return "FORK";
    case PTRACE_EVENT_VFORK: return "VFORK";
    case PTRACE_EVENT_CLONE: return "CLONE";
    case PTRACE_EVENT_EXEC: return "EXEC";
    case PTRACE_EVENT_VFORK_DONE: return "VFORK_DONE";
    case PTRACE_EVENT_EXIT: return "EXIT";
    case PTRACE_EVENT_STOP: return "STOP";
    }
    return "?";
}

/* A ptrace wait status: "stopped by SIG[|0x80] event E", or wstatus(). */
static const char *pstatus(int st) __attribute__((unused));
static const char *pstatus(int st)
{
    static char buf[96];
    if (WIFSTOPPED(st)) {
        int sig = WSTOPSIG(st);
        snprintf(buf, sizeof buf, "stopped by %s%s event %s", signame(sig & 0x7f),
                 sig & 0x80 ? "|0x80" : "", event_name(st >> 16));
        return buf;
    }
    return wstatus(st);
}

/* waitpid(pid, __WALL) and print "label: <status>"; returns the status. */
static int pwait(const char *label, pid_t pid) __attribute__((unused));
static int pwait(const char *label, pid_t pid)
{
    int st = 0;
    pid_t r = waitpid(pid, &st, __WALL);
    if (r < 0) {
        out("%s: waitpid %s", label, errname(errno));
        return -1;
    }
    out("%s: %s%s", label, pstatus(st), r == pid || pid <= 0 ? "" : " (other pid)");
    return st;
}

/* "label: ok" or "label: ENAME" for a ptrace call. */
static long pt(const char *label, long r) __attribute__((unused));
static long pt(const char *label, long r)
{
    return check(label, r);
}

/* The child side of PTRACE_TRACEME: traced, then stopped by SIGSTOP. */
static void traceme_and_stop(void) __attribute__((unused));
static void traceme_and_stop(void)
{
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
        _exit(100);
    raise(SIGSTOP);
}

/* A line of /proc/PID/status starting with key (without the newline). */
static const char *status_line(pid_t pid, const char *key) __attribute__((unused));
static const char *status_line(pid_t pid, const char *key)
{
    static char buf[4096];
    static char line[256];
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return "(no status)";
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return "(unreadable)";
    buf[n] = 0;
    for (char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, strlen(key)) == 0) {
            size_t len = strcspn(p, "\n");
            if (len >= sizeof line)
                len = sizeof line - 1;
            memcpy(line, p, len);
            line[len] = 0;
            return line;
        }
    }
    return "(missing)";
}
#endif
