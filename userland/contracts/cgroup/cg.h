/* Helpers of the cgroup tests: the cgroup2 hierarchy mounted at ./cg in
 * the scratch directory (the init mounts no /sys; every mount of cgroup2
 * shows the one hierarchy), files read and written whole, a test's own
 * cgroups made under cg/ and removed at the end. */
#ifndef CONTRACTS_CG_H
#define CONTRACTS_CG_H

#include "common.h"
#include <poll.h>
#include <sys/mount.h>
#include <sys/statfs.h>

#define CG "cg"

/* Mounts the hierarchy at ./cg; exits if that fails. */
static __attribute__((unused)) void cg_mount(void)
{
    mkdir(CG, 0755);
    if (mount("none", CG, "cgroup2", 0, NULL) < 0) {
        out("mount cgroup2: %s", errname(errno));
        exit(1);
    }
}

static __attribute__((unused)) void cg_umount(void)
{
    umount2(CG, MNT_DETACH);
}

/* Reads a file's text into buf (NUL-terminated); -1 with errno on failure. */
static __attribute__((unused)) ssize_t cg_read(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t r = read_full(fd, buf, n - 1);
    int e = errno;
    close(fd);
    errno = e;
    if (r < 0)
        return -1;
    buf[r] = 0;
    return r;
}

/* Writes text to a file in one write(2): 0 or -1 with errno. */
static __attribute__((unused)) int cg_write(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return w < 0 ? -1 : 0;
}

/* Prints "label: ok" or "label: ENAME" for a write. */
static __attribute__((unused)) void cg_try(const char *label, const char *path, const char *text)
{
    check(label, cg_write(path, text));
}

/* Prints the file's text, each line prefixed with "label: ". */
static __attribute__((unused)) void cg_show(const char *label, const char *path)
{
    char buf[4096];
    if (cg_read(path, buf, sizeof buf) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    char *line = buf, *nl;
    if (!*buf)
        out("%s: (empty)", label);
    while (*line && (nl = strchr(line, '\n'))) {
        *nl = 0;
        out("%s: %s", label, line);
        line = nl + 1;
    }
    if (*line)
        out("%s: %s (no newline)", label, line);
}

/* Whether the file's text has the word `word` (space or line delimited). */
static __attribute__((unused)) int cg_has_word(const char *path, const char *word)
{
    char buf[4096];
    if (cg_read(path, buf, sizeof buf) < 0)
        return 0;
    size_t n = strlen(word);
    for (char *p = buf; (p = strstr(p, word)); p += n) {
        int start = p == buf || p[-1] == ' ' || p[-1] == '\n';
        int end = p[n] == 0 || p[n] == ' ' || p[n] == '\n';
        if (start && end)
            return 1;
    }
    return 0;
}

/* The number after `key ` in a flat-keyed file (cgroup.events,
 * cpu.stat, memory.events); -1 if missing. */
static __attribute__((unused)) long long cg_key(const char *path, const char *key)
{
    char buf[8192];
    if (cg_read(path, buf, sizeof buf) < 0)
        return -1;
    size_t n = strlen(key);
    for (char *line = buf; line && *line;) {
        if (!strncmp(line, key, n) && line[n] == ' ')
            return atoll(line + n + 1);
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return -1;
}

/* The whole number a file holds; -1 on failure. */
static __attribute__((unused)) long long cg_num(const char *path)
{
    char buf[64];
    if (cg_read(path, buf, sizeof buf) < 0)
        return -1;
    return atoll(buf);
}

/* Moves process `pid` (0: the caller) into the cgroup directory `dir`. */
static __attribute__((unused)) int cg_move(const char *dir, pid_t pid)
{
    char path[4200], text[32];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    snprintf(text, sizeof text, "%d", (int)pid);
    return cg_write(path, text);
}

/* Waits (up to ~20 s) until `key` in `path` reads `value`; returns
 * whether it did. Polls the file for POLLPRI between reads, as a
 * watcher of cgroup.events does. */
static __attribute__((unused)) int cg_wait_key(const char *path, const char *key, long long value)
{
    for (int i = 0; i < 200; i++) {
        if (cg_key(path, key) == value)
            return 1;
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            char buf[256];
            read(fd, buf, sizeof buf);
            if (cg_key(path, key) == value) {
                close(fd);
                return 1;
            }
            struct pollfd p = {fd, POLLPRI, 0};
            poll(&p, 1, 100);
            close(fd);
        }
    }
    return cg_key(path, key) == value;
}

/* A child that waits in pause() until killed; returns its pid. */
static __attribute__((unused)) pid_t cg_sleeper(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

/* Ends a child with SIGKILL and reaps it. */
static __attribute__((unused)) void cg_end(pid_t pid)
{
    kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
}

#endif
