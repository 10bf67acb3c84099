/* /proc/sys/fs limits: their format, bounds and modes, and that they are
 * enforced: file-nr counts open files against file-max (ENFILE for a user
 * past it), nr_open bounds RLIMIT_NOFILE (EPERM, root too), pipe-max-size
 * bounds F_SETPIPE_SZ for a user (EPERM; root may exceed it) and is
 * rounded as pipe sizes are; a user may not write any of them. */
#include "common.h"
#include <sys/resource.h>

static int get(const char *name, char *buf, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    ssize_t r = read(fd, buf, n - 1);
    int e = errno;
    close(fd);
    if (r < 0)
        return -e;
    buf[r] = 0;
    return 0;
}

static long num(const char *name)
{
    char buf[256];
    if (get(name, buf, sizeof buf))
        return -1;
    return strtol(buf, NULL, 10);
}

static void put(const char *name, const char *value)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        out("write %s=%s: open -1 %s", name, value, errname(errno));
        return;
    }
    ssize_t r = write(fd, value, strlen(value));
    if (r < 0)
        out("write %s=%s: -1 %s", name, value, errname(errno));
    else
        out("write %s=%s: ok", name, value);
    close(fd);
}

/* The fields of a file: their count, separators, and the ones whose
 * value Linux fixes. */
static void fields(const char *name)
{
    char buf[256];
    int r = get(name, buf, sizeof buf);
    if (r) {
        out("%s: -1 %s", name, errname(-r));
        return;
    }
    int n = 0, tabs = 0, spaces = 0;
    for (char *p = buf; *p; p++) {
        if (*p == '\t')
            tabs++;
        if (*p == ' ')
            spaces++;
    }
    char copy[256];
    strcpy(copy, buf);
    for (char *t = strtok(copy, "\t\n"); t; t = strtok(NULL, "\t\n"))
        n++;
    out("%s: %d fields, %d tabs, %d spaces, ends in newline: %s", name, n, tabs, spaces, yesno(buf[strlen(buf) - 1] == '\n'));
}

static void mode(const char *name)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
    if (stat(path, &st))
        out("%s: stat -1 %s", name, errname(errno));
    else
        out("%s: mode %o uid %d", name, st.st_mode & 07777, (int)st.st_uid);
}

static void as_user(void)
{
    if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
        _exit(2);
}

int main(void)
{
    const char *names[] = { "file-max", "file-nr", "nr_open", "pipe-max-size", "pipe-user-pages-hard", "pipe-user-pages-soft",
                            "protected_symlinks", "protected_hardlinks", "protected_fifos", "protected_regular",
                            "dentry-state", "inode-nr", "inode-state" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        mode(names[i]);
        fields(names[i]);
    }
    out("nr_open: %ld", num("nr_open"));
    out("pipe-max-size: %ld", num("pipe-max-size"));
    out("pipe-user-pages-hard: %ld", num("pipe-user-pages-hard"));
    out("pipe-user-pages-soft: %ld", num("pipe-user-pages-soft"));
    const char *sw[] = { "protected_symlinks", "protected_hardlinks", "protected_fifos", "protected_regular" };
    for (int i = 0; i < 4; i++)
        out("%s: %ld", sw[i], num(sw[i]));

    /* file-nr: allocated, 0, file-max; more files open, more counted. */
    char buf[256];
    unsigned long nr1, zero, max, nr2, z2, max2;
    get("file-nr", buf, sizeof buf);
    sscanf(buf, "%lu %lu %lu", &nr1, &zero, &max);
    out("file-nr: second 0: %s, third is file-max: %s, file-max at least 8192: %s", yesno(zero == 0), yesno((long)max == num("file-max")), yesno(max >= 8192));
    int fds[64];
    for (int i = 0; i < 64; i++)
        fds[i] = open("/dev/null", O_RDONLY);
    get("file-nr", buf, sizeof buf);
    sscanf(buf, "%lu %lu %lu", &nr2, &z2, &max2);
    out("file-nr grew by 64 open files: %s", yesno(nr2 >= nr1 + 32 && nr2 <= nr1 + 96));
    for (int i = 0; i < 64; i++)
        close(fds[i]);
    unsigned long inodes, unused;
    get("inode-nr", buf, sizeof buf);
    out("inode-nr plausible: %s", yesno(sscanf(buf, "%lu %lu", &inodes, &unused) == 2 && inodes > 0 && unused <= inodes));
    unsigned long d[6];
    get("dentry-state", buf, sizeof buf);
    out("dentry-state: %d numbers, age_limit %lu, want_pages %lu, dummy %lu",
        sscanf(buf, "%lu %lu %lu %lu %lu %lu", &d[0], &d[1], &d[2], &d[3], &d[4], &d[5]), d[2], d[3], d[5]);

    /* Bounds of writes (as root). */
    put("nr_open", "63");
    put("nr_open", "64");
    out("nr_open: %ld", num("nr_open"));
    put("nr_open", "2147483584");
    put("nr_open", "2147483585");
    put("nr_open", "-1");
    put("nr_open", "abc");
    put("nr_open", "4096");
    struct rlimit rl = { 4096, 4096 };
    check("setrlimit NOFILE 4096 (nr_open 4096)", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_max = 4097;
    check("setrlimit NOFILE max 4097 (nr_open 4096)", setrlimit(RLIMIT_NOFILE, &rl));
    put("nr_open", "1048576");
    rl.rlim_cur = rl.rlim_max = 1048576;
    check("setrlimit NOFILE 1048576", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_cur = rl.rlim_max = 1048577;
    check("setrlimit NOFILE 1048577", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_cur = 1024;
    rl.rlim_max = 4096;
    check("setrlimit NOFILE back", setrlimit(RLIMIT_NOFILE, &rl));

    put("pipe-max-size", "5000");
    out("pipe-max-size: %ld", num("pipe-max-size"));
    put("pipe-max-size", "0");
    out("pipe-max-size: %ld", num("pipe-max-size"));
    put("pipe-max-size", "2147483649");
    put("pipe-max-size", "-4096");
    put("pipe-max-size", "262144");
    put("protected_symlinks", "2");
    put("protected_hardlinks", "-1");
    put("protected_fifos", "3");
    put("protected_regular", "2");
    out("protected_regular: %ld", num("protected_regular"));
    put("protected_regular", "0");
    put("file-max", "-1");
    put("pipe-user-pages-soft", "-1");

    /* F_SETPIPE_SZ against pipe-max-size (256 KiB now). */
    int p[2];
    if (pipe(p))
        return 1;
    show("root F_SETPIPE_SZ 1 MiB", fcntl(p[0], F_SETPIPE_SZ, 1 << 20));
    show("root F_SETPIPE_SZ 100000", fcntl(p[0], F_SETPIPE_SZ, 100000));
    close(p[0]);
    close(p[1]);
    int sync[2];
    if (pipe(sync))
        return 1;
    pid_t child = fork();
    if (child == 0) {
        as_user();
        if (pipe(p))
            _exit(1);
        show("user F_SETPIPE_SZ 256 KiB", fcntl(p[0], F_SETPIPE_SZ, 256 << 10));
        show("user F_SETPIPE_SZ 512 KiB", fcntl(p[0], F_SETPIPE_SZ, 512 << 10));
        show("user F_SETPIPE_SZ 4096", fcntl(p[0], F_SETPIPE_SZ, 4096));
        show("user F_GETPIPE_SZ", fcntl(p[0], F_GETPIPE_SZ));
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (i == 1 || i >= 10)
                continue;
            put(names[i], "1");
        }
        struct rlimit r2 = { 4096, 4096 };
        check("user setrlimit NOFILE up to its max", setrlimit(RLIMIT_NOFILE, &r2));
        _exit(0);
    }
    reap("user child", child);
    put("pipe-max-size", "1048576");

    /* file-max: a user past it gets ENFILE; root does not. */
    get("file-nr", buf, sizeof buf);
    sscanf(buf, "%lu", &nr1);
    char value[32];
    snprintf(value, sizeof value, "%lu", nr1 + 40);
    int fd = open("/proc/sys/fs/file-max", O_WRONLY);
    out("set file-max to file-nr + 40: %s", yesno(fd >= 0 && write(fd, value, strlen(value)) > 0));
    close(fd);
    child = fork();
    if (child == 0) {
        as_user();
        int opened = 0, err = 0;
        for (int i = 0; i < 200; i++) {
            if (open("/dev/null", O_RDONLY) < 0) {
                err = errno;
                break;
            }
            opened++;
        }
        out("user: stopped by %s", err ? errname(err) : "nothing");
        out("user: opened fewer than 200: %s", yesno(opened < 200));
        _exit(0);
    }
    reap("user child", child);
    child = fork();
    if (child == 0) {
        int opened = 0, err = 0;
        for (int i = 0; i < 200; i++) {
            if (open("/dev/null", O_RDONLY) < 0) {
                err = errno;
                break;
            }
            opened++;
        }
        out("root: opened %d, error %s", opened, err ? errname(err) : "none");
        _exit(0);
    }
    reap("root child", child);
    snprintf(value, sizeof value, "%lu", max);
    fd = open("/proc/sys/fs/file-max", O_WRONLY);
    out("file-max restored: %s", yesno(fd >= 0 && write(fd, value, strlen(value)) > 0));
    close(fd);
    return 0;
}
