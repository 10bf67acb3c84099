/* A user namespace made by uid 1000: ids it does not map read as the
 * overflow id 65534; /proc/self/uid_map and gid_map start empty and take
 * one write; an unprivileged writer may map only its own id, its group
 * only once /proc/self/setgroups says "deny" (which cannot go back to
 * "allow"); malformed maps are EINVAL; after the maps the ids read
 * through them, setgroups(2) stays refused and setuid to an unmapped id
 * is EINVAL. */
#include "../common.h"
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        out("open %s: %s", path, errname(errno));
        return;
    }
    ssize_t n = write(fd, text, strlen(text));
    if (n < 0)
        out("write %s \"%.*s\": %s", path, (int)strcspn(text, "\n"), text, errname(errno));
    else
        out("write %s \"%.*s\": %zd", path, (int)strcspn(text, "\n"), text, n);
    close(fd);
}

static void cat(const char *path)
{
    char buf[256];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("open %s: %s", path, errname(errno));
        return;
    }
    ssize_t n = read_full(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) {
        out("read %s: %s", path, errname(errno));
        return;
    }
    buf[n] = 0;
    out("%s: %zd bytes", path, n);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        out("  [%s]", line);
}

static void ids(const char *when)
{
    uid_t r, e, s;
    gid_t gr, ge, gs;
    getresuid(&r, &e, &s);
    getresgid(&gr, &ge, &gs);
    out("%s: uid %d %d %d gid %d %d %d", when, (int)r, (int)e, (int)s, (int)gr, (int)ge, (int)gs);
}

int main(void)
{
    cat("/proc/self/uid_map");
    cat("/proc/self/setgroups");
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        /* Dumpable again, so that its /proc files are its own. */
        prctl(PR_SET_DUMPABLE, 1);
        check("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
        ids("before maps");
        cat("/proc/self/uid_map");
        cat("/proc/self/gid_map");
        cat("/proc/self/setgroups");
        put("/proc/self/uid_map", "0 0 1\n");
        put("/proc/self/uid_map", "0 1000 2\n");
        put("/proc/self/uid_map", "0 1000 0\n");
        put("/proc/self/uid_map", "x 1000 1\n");
        put("/proc/self/uid_map", "0 1000\n");
        put("/proc/self/uid_map", "4294967295 1000 1\n");
        put("/proc/self/uid_map", "0 1000 1\n");
        put("/proc/self/uid_map", "0 1000 1\n");
        put("/proc/self/gid_map", "0 1000 1\n");
        put("/proc/self/setgroups", "maybe\n");
        put("/proc/self/setgroups", "deny\n");
        put("/proc/self/gid_map", "0 1000 1\n");
        put("/proc/self/setgroups", "allow\n");
        put("/proc/self/setgroups", "deny\n");
        ids("after maps");
        cat("/proc/self/uid_map");
        cat("/proc/self/gid_map");
        cat("/proc/self/setgroups");
        check("setgroups(0)", setgroups(0, NULL));
        check("setuid(1)", setuid(1));
        check("setuid(0)", setuid(0));
        check("setresuid(-1,0,-1)", setresuid(-1, 0, -1));
        gid_t list[4];
        show("getgroups", getgroups(4, list));
        _exit(0);
    }
    reap("uid 1000 child", pid);
    return 0;
}
