/* PID namespaces and /proc: a procfs mounted inside the namespace (in its
 * own mount namespace) lists the namespace's numbers, /proc/self is the
 * inside number, /proc/1/status shows Pid 1 and PPid 0, NSpid has one
 * column per level and the last is the inside number; /proc/PID/ns/pid of
 * the child differs from the parent's and equals the parent's
 * pid_for_children; setns to the child's namespace puts the next child
 * there (setns from inside back to the parent's namespace: EINVAL);
 * NS_GET_PARENT of the child's namespace is the parent's from outside and
 * EPERM from inside. */
#include "../common.h"
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>

#define NS_GET_PARENT _IO(0xb7, 0x2)

static void show_status_line(const char *who, const char *path, const char *key)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: open %s: %s", who, path, errname(errno));
        return;
    }
    ssize_t n = read_full(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = 0;
    char *line = strstr(buf, key);
    if (!line) {
        out("%s: %s missing", who, key);
        return;
    }
    char *end = strchr(line, '\n');
    if (end)
        *end = 0;
    /* columns after the key, and the last one */
    int cols = 0;
    char *last = line + strlen(key);
    for (char *t = strtok(line + strlen(key), "\t "); t; t = strtok(NULL, "\t ")) {
        cols++;
        last = t;
    }
    out("%s: %s %d columns, last %s", who, key, cols, last);
}

static unsigned long long ino_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    return st.st_ino;
}

int main(void)
{
    char path[128];
    unsigned long long mine = ino_of("/proc/self/ns/pid");
    int parentns = open("/proc/self/ns/pid", O_RDONLY);
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    struct stat fst;
    out("stat pid_for_children before the first child: %s", stat("/proc/self/ns/pid_for_children", &fst) < 0 ? errname(errno) : "ok");
    int go[2], done[2];
    if (pipe(go) < 0 || pipe(done) < 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        out("child: ns/pid differs from the parent's: %s", yesno(ino_of("/proc/self/ns/pid") != mine));
        check("child: unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("child: make / private", mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL));
        check("child: mount proc", mount("proc", "/proc", "proc", 0, NULL));
        char link[64] = {0};
        ssize_t n = readlink("/proc/self", link, sizeof link - 1);
        out("child: /proc/self -> %s", n < 0 ? errname(errno) : link);
        DIR *d = opendir("/proc");
        int count = 0, saw1 = 0, big = 0;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            count++;
            saw1 |= strcmp(e->d_name, "1") == 0;
            big |= atoi(e->d_name) > 10;
        }
        if (d)
            closedir(d);
        out("child: /proc lists %d pids, 1 among them: %s, any above 10: %s", count, yesno(saw1), yesno(big));
        show_status_line("child", "/proc/1/status", "Pid:");
        show_status_line("child", "/proc/1/status", "PPid:");
        show_status_line("child", "/proc/self/status", "NSpid:");
        show_status_line("child", "/proc/self/status", "NStgid:");
        snprintf(path, sizeof path, "/proc/%d/status", 2);
        show_status_line("child", path, "Pid:");
        int fd = open("/proc/1/ns/pid", O_RDONLY);
        out("child: NS_GET_PARENT of its own namespace: %s", ioctl(fd, NS_GET_PARENT) < 0 ? errname(errno) : "ok");
        close(fd);
        check("child: setns(parent's pid ns)", setns(parentns, CLONE_NEWPID));
        char c;
        write(done[1], "x", 1);
        close(go[1]);
        read(go[0], &c, 1);
        _exit(0);
    }
    char c;
    read(done[0], &c, 1);
    snprintf(path, sizeof path, "/proc/%d/ns/pid", child);
    out("parent: pid_for_children is the child's ns/pid: %s", yesno(ino_of("/proc/self/ns/pid_for_children") == ino_of(path)));
    snprintf(path, sizeof path, "/proc/%d/status", child);
    show_status_line("parent", path, "NSpid:");
    snprintf(path, sizeof path, "/proc/%d/ns/pid", child);
    int nsfd = open(path, O_RDONLY);
    int parent_fd = ioctl(nsfd, NS_GET_PARENT);
    struct stat pst;
    out("parent: NS_GET_PARENT is its own namespace: %s", yesno(parent_fd >= 0 && fstat(parent_fd, &pst) == 0 && pst.st_ino == mine));
    int selffd = open("/proc/self/ns/pid", O_RDONLY);
    check("parent: setns(own pid ns, CLONE_NEWPID)", setns(selffd, CLONE_NEWPID));
    check("parent: setns(child's pid ns, CLONE_NEWPID)", setns(nsfd, CLONE_NEWPID));
    pid_t joined = fork();
    if (joined == 0) {
        out("joined: getpid %d getppid %d", getpid(), getppid());
        int fd = open("/proc/self/ns/pid", O_RDONLY);
        _exit(fd < 0 ? 2 : 0);
    }
    reap("joined", joined);
    close(go[1]);
    reap("child", child);
    pid_t inner = fork();
    if (inner == 0)
        _exit(0);
    out("parent: fork after the namespace's init exited: %s", inner < 0 ? errname(errno) : "ok");
    if (inner > 0)
        reap("inner", inner);
    check("parent: unshare(CLONE_NEWPID) again (children went elsewhere)", unshare(CLONE_NEWPID));
    return 0;
}
