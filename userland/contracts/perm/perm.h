/* Helpers of the perm tests: becoming an unprivileged user (uid and gid
 * 1000, no supplementary groups), with no capability or with exactly one
 * kept through PR_SET_KEEPCAPS and capset. */
#ifndef CONTRACTS_PERM_H
#define CONTRACTS_PERM_H

#include "common.h"
#include <grp.h>
#include <sys/prctl.h>

#define NO_CAP (-1)
/* Capability numbers (linux/capability.h; musl has no such header). */
#define CAP_KILL_ 5
#define CAP_NET_BIND_SERVICE_ 10
#define CAP_NET_ADMIN_ 12
#define CAP_NET_RAW_ 13
#define CAP_SYS_RAWIO_ 17
#define CAP_SYS_CHROOT_ 18
#define CAP_SYS_PTRACE_ 19
#define CAP_SYS_ADMIN_ 21
#define CAP_SYS_BOOT_ 22
#define CAP_SYS_NICE_ 23
#define CAP_SYS_RESOURCE_ 24
#define CAP_SYS_TIME_ 25
#define CAP_MKNOD_ 27
#define CAP_SYSLOG_ 34

struct perm_cap_header { uint32_t version; int pid; };
struct perm_cap_data { uint32_t effective, permitted, inheritable; };

/* Sets the effective and permitted sets to `cap` alone (none for NO_CAP). */
static int perm_set_caps(int cap)
{
    struct perm_cap_header h = { 0x20080522, 0 };
    struct perm_cap_data d[2];
    memset(d, 0, sizeof d);
    if (cap >= 0) {
        d[cap / 32].effective = 1u << (cap % 32);
        d[cap / 32].permitted = 1u << (cap % 32);
    }
    return (int)syscall(SYS_capset, &h, d);
}

/* Becomes uid/gid `id` keeping only capability `cap` (or none), dumpable
 * again (as after an exec: the id change cleared it). Exits
 * with status 99 if that fails (the output then differs from Linux's). */
static void become(uid_t id, int cap) __attribute__((unused));
static void become(uid_t id, int cap)
{
    if (prctl(PR_SET_KEEPCAPS, cap >= 0, 0, 0, 0) != 0 || setgroups(0, NULL) != 0 || setresgid(id, id, id) != 0 ||
        setresuid(id, id, id) != 0 || perm_set_caps(cap) != 0 || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) {
        out("become(%u, %d) failed: %s", (unsigned)id, cap, errname(errno));
        _exit(99);
    }
}

/* A child that waits (in pause) until killed; `id` != 0 makes it that
 * user first (no capabilities). */
static pid_t sleeper(uid_t id) __attribute__((unused));
static pid_t sleeper(uid_t id)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (id != 0)
            become(id, NO_CAP);
        for (;;)
            pause();
    }
    return pid;
}

/* Kills and reaps a sleeper. */
static void end_sleeper(pid_t pid) __attribute__((unused));
static void end_sleeper(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Runs `fn(arg)` in a child that became uid 1000 with `cap` (NO_CAP: none)
 * and waits for it; the child's own output is the result. */
static void as_user(int cap, void (*fn)(long), long arg) __attribute__((unused));
static void as_user(int cap, void (*fn)(long), long arg)
{
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, cap);
        fn(arg);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        out("  (child: %s)", wstatus(st));
}

#endif
