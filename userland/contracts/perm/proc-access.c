/* What uid 1000 may see of another process in /proc (Linux's ptrace read
 * check with the file-system ids): maps and environ refuse to open
 * (EACCES), the cwd/exe/root links refuse to be read or followed, the fd
 * directory is the owner's, stat hides the addresses (start_code and
 * end_code read 1); cmdline, status and statm stay readable. For a root
 * process, for a process of the same user, for one of the same user that
 * is not dumpable (its files belong to root), and with CAP_SYS_PTRACE
 * (which still does not pass the mode bits). */
#include "perm.h"

static void try_open(const char *what, pid_t pid, const char *name)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("    %s %s: open %s", what, name, errname(errno));
        return;
    }
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    out("    %s %s: open ok, read %s", what, name, n < 0 ? errname(errno) : "ok");
    close(fd);
}

static void try_link(pid_t pid, const char *name)
{
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
    ssize_t n = readlink(path, target, sizeof target);
    out("    readlink %s: %s", name, n < 0 ? errname(errno) : "ok");
    struct stat st;
    out("    stat through %s: %s", name, stat(path, &st) < 0 ? errname(errno) : "ok");
}

/* Fields 26 and 27 of /proc/PID/stat (start_code, end_code) and 28
 * (start_stack), which Linux hides without access. */
static void stat_fields(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0) {
        out("    stat: %s", errname(errno));
        return;
    }
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    int field = 2;
    unsigned long long v[64] = { 0 };
    for (char *tok = strtok(p + 1, " "); tok && field < 63; tok = strtok(NULL, " "))
        v[++field] = strtoull(tok, NULL, 10);
    out("    stat start_code %s, end_code %s, start_stack %s", v[26] == 1 ? "1" : v[26] == 0 ? "0" : "an address",
        v[27] == 1 ? "1" : v[27] == 0 ? "0" : "an address", v[28] == 0 ? "0" : "an address");
}

static void look_at(const char *who, pid_t pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", pid);
    stat(path, &st);
    out("  %s (owner uid %u):", who, (unsigned)st.st_uid);
    try_open(who, pid, "maps");
    try_open(who, pid, "environ");
    try_open(who, pid, "auxv");
    try_open(who, pid, "cmdline");
    try_open(who, pid, "status");
    try_open(who, pid, "statm");
    try_open(who, pid, "comm");
    try_link(pid, "cwd");
    try_link(pid, "exe");
    try_link(pid, "root");
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    out("    opendir fd: %s", d ? "ok" : errname(errno));
    if (d)
        closedir(d);
    snprintf(path, sizeof path, "/proc/%d/fd/0", pid);
    char target[256];
    out("    readlink fd/0: %s", readlink(path, target, sizeof target) < 0 ? errname(errno) : "ok");
    stat_fields(pid);
}

extern char **environ;

/* /proc/self/auxv holds the auxiliary vector exec put after the
 * environment pointers, AT_NULL pair included. */
static void own_auxv(void)
{
    char **p = environ;
    while (*p)
        p++;
    unsigned long *stack = (unsigned long *)(p + 1);
    size_t words = 0;
    while (stack[words] != 0)
        words += 2;
    words += 2;
    static unsigned char file[4096];
    int fd = open("/proc/self/auxv", O_RDONLY);
    ssize_t n = read_full(fd, file, sizeof file);
    close(fd);
    out("  /proc/self/auxv: %s bytes of pairs, ends with AT_NULL: %s, same as the stack's: %s",
        n > 0 && n % 16 == 0 ? "whole" : "broken", yesno(n >= 16 && ((unsigned long *)file)[n / 8 - 2] == 0),
        yesno((size_t)n == words * 8 && memcmp(file, stack, n) == 0));
}

static void actor(long root_pid)
{
    own_auxv();
    look_at("root process", (pid_t)root_pid);
    look_at("init", 1);
    pid_t mine = sleeper(0);
    look_at("same user", mine);
    end_sleeper(mine);
    int ready[2];
    pipe(ready);
    pid_t hidden = fork();
    if (hidden == 0) {
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    char c;
    read(ready[0], &c, 1);
    look_at("same user, not dumpable", hidden);
    end_sleeper(hidden);
    look_at("itself", getpid());
}

int main(void)
{
    pid_t root = sleeper(0);
    out("uid 1000");
    as_user(NO_CAP, actor, root);
    out("uid 1000 with CAP_SYS_PTRACE");
    as_user(CAP_SYS_PTRACE_, actor, root);
    end_sleeper(root);
    return 0;
}
