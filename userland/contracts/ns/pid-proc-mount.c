/* A procfs numbers processes as the PID namespace of whoever mounted it,
 * not as the reader's: after unshare(CLONE_NEWPID) and fork, the child
 * (PID 1 of the new namespace) reading the /proc mounted outside sees its
 * outer number in /proc/self, /proc/self/stat (pid, ppid), status (Pid,
 * PPid, Tgid, NSpid with both levels), /proc/self/task, and its parent's
 * /proc/PID/task and status by their outer numbers; a procfs it mounts
 * itself (in a new mount namespace, on a scratch directory) shows the
 * inside numbers: 1, PPid 0, one NSpid column, and no outer pid. A
 * pidfd's fdinfo (Pid, NSpid) follows the procfs it is read through too. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static char text[8192];
static int pidfd = -1;

static const char *read_text(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(text, sizeof text, "open: %s", errname(errno));
        return NULL;
    }
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n < 0 ? 0 : n] = 0;
    return text;
}

/* The value of `key` in a status file, with the tabs as spaces. */
static const char *status_value(const char *path, const char *key)
{
    static char value[256];
    if (!read_text(path))
        return text;
    char *line = strstr(text, key);
    if (!line)
        return "missing";
    line += strlen(key);
    while (*line == '\t' || *line == ' ')
        line++;
    size_t i = 0;
    while (line[i] && line[i] != '\n' && i < sizeof value - 1) {
        value[i] = line[i] == '\t' ? ' ' : line[i];
        i++;
    }
    value[i] = 0;
    return value;
}

/* Replaces the numbers `outer` and `parent` in `s` by names, so that the
 * output does not depend on which pids the system gave. */
static const char *named(const char *s, int outer, int parent)
{
    static char buf[512];
    char o[16], p[16];
    snprintf(o, sizeof o, "%d", outer);
    snprintf(p, sizeof p, "%d", parent);
    buf[0] = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", s);
    char *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (buf[0])
            strcat(buf, " ");
        strcat(buf, strcmp(t, o) == 0 ? "OUTER" : strcmp(t, p) == 0 ? "PARENT" : t);
    }
    return buf;
}

/* Fields 1 (pid) and 4 (ppid) of a stat file. */
static void show_stat(const char *who, const char *path, int outer, int parent)
{
    if (!read_text(path)) {
        out("%s: stat: %s", who, text);
        return;
    }
    int pid = -1, ppid = -1;
    char *close_paren = strrchr(text, ')');
    pid = atoi(text);
    if (close_paren)
        sscanf(close_paren + 2, "%*c %d", &ppid);
    char both[64];
    snprintf(both, sizeof both, "%d %d", pid, ppid);
    out("%s: stat pid ppid: %s", who, named(both, outer, parent));
}

static void show_task(const char *who, const char *label, const char *dir, int outer, int parent)
{
    DIR *d = opendir(dir);
    if (!d) {
        out("%s: opendir %s: %s", who, label, errname(errno));
        return;
    }
    char names[256] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%.20s", used ? " " : "", e->d_name);
    }
    closedir(d);
    out("%s: %s lists: %s", who, label, named(names, outer, parent));
}

static void show_view(const char *who, const char *root, int outer, int parent)
{
    char path[128], link[64] = {0};
    snprintf(path, sizeof path, "%s/self", root);
    ssize_t n = readlink(path, link, sizeof link - 1);
    out("%s: self -> %s", who, n < 0 ? errname(errno) : named(link, outer, parent));
    snprintf(path, sizeof path, "%s/self/stat", root);
    show_stat(who, path, outer, parent);
    snprintf(path, sizeof path, "%s/self/status", root);
    out("%s: Pid %s", who, named(status_value(path, "\nPid:"), outer, parent));
    out("%s: PPid %s", who, named(status_value(path, "PPid:"), outer, parent));
    out("%s: Tgid %s", who, named(status_value(path, "Tgid:"), outer, parent));
    out("%s: NSpid %s", who, named(status_value(path, "NSpid:"), outer, parent));
    out("%s: NStgid %s", who, named(status_value(path, "NStgid:"), outer, parent));
    snprintf(path, sizeof path, "%s/self/fdinfo/%d", root, pidfd);
    out("%s: pidfd fdinfo Pid %s", who, named(status_value(path, "\nPid:"), outer, parent));
    out("%s: pidfd fdinfo NSpid %s", who, named(status_value(path, "NSpid:"), outer, parent));
    snprintf(path, sizeof path, "%s/self/task", root);
    show_task(who, "self/task", path, outer, parent);
    snprintf(path, sizeof path, "%s/%d/task", root, parent);
    show_task(who, "PARENT/task", path, outer, parent);
    snprintf(path, sizeof path, "%s/%d/status", root, parent);
    out("%s: parent's Pid %s", who, named(status_value(path, "\nPid:"), outer, parent));
    snprintf(path, sizeof path, "%s/%d/stat", root, outer);
    show_stat(who, path, outer, parent);
    snprintf(path, sizeof path, "%s/1/stat", root);
    struct stat st;
    out("%s: 1/stat exists: %s", who, yesno(stat(path, &st) == 0));
}

int main(void)
{
    int ids[2], done[2];
    if (pipe(ids) < 0 || pipe(done) < 0)
        return 1;
    mkdir("p", 0755);
    pid_t parent = getpid();
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    pid_t child = fork();
    if (child == 0) {
        int outer = 0;
        if (read(ids[0], &outer, sizeof outer) != sizeof outer)
            _exit(2);
        out("child: getpid %d getppid %d", getpid(), getppid());
        pidfd = syscall(SYS_pidfd_open, getpid(), 0);
        out("child: pidfd_open(self): %s", pidfd < 0 ? errname(errno) : "ok");
        show_view("child /proc", "/proc", outer, parent);
        check("child: unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("child: make / private", mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL));
        check("child: mount proc on p", mount("proc", "p", "proc", 0, NULL));
        show_view("child p", "p", outer, parent);
        show_view("child /proc again", "/proc", outer, parent);
        check("child: umount p", umount("p"));
        _exit(0);
    }
    if (child < 0)
        return 1;
    write(ids[1], &child, sizeof child);
    reap("child", child);
    rmdir("p");
    return 0;
}
