/* /proc/PID/ns: its entries in listing order, each a symbolic link whose
 * text is `type:[inode]` with the initial namespaces' inode numbers
 * (fixed by Linux for all but mnt and net), the node it leads to (a
 * regular file, mode 0444, whose inode number is the one in the link),
 * the same node for every process of a namespace, and the ptrace-read
 * rule for another user's links (EACCES). */
#include "../common.h"
#include <sched.h>

static const char *names[] = {"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "time_for_children", "user", "uts"};

int main(void)
{
    DIR *d = opendir("/proc/self/ns");
    struct dirent *e;
    char list[512] = "";
    while (d && (e = readdir(d))) {
        strcat(list, " ");
        strcat(list, e->d_name);
    }
    if (d)
        closedir(d);
    out("entries:%s", list);
    struct stat dst;
    stat("/proc/self/ns", &dst);
    out("directory mode %04o", dst.st_mode & 07777);
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        char path[64], text[64] = "";
        snprintf(path, sizeof path, "/proc/self/ns/%s", names[i]);
        ssize_t n = readlink(path, text, sizeof text - 1);
        text[n > 0 ? n : 0] = 0;
        struct stat lst, st;
        lstat(path, &lst);
        if (stat(path, &st) < 0) {
            out("%s: stat %s", names[i], errname(errno));
            continue;
        }
        char expect[64];
        const char *kind = strncmp(names[i], "pid", 3) == 0 ? "pid" : strncmp(names[i], "time", 4) == 0 ? "time" : names[i];
        snprintf(expect, sizeof expect, "%s:[%lu]", kind, (unsigned long)st.st_ino);
        int fixed = strcmp(kind, "mnt") != 0 && strcmp(kind, "net") != 0;
        out("%s: link %s, link mode %04o, target %s %04o, inode matches link: %s", names[i], fixed ? text : kind, lst.st_mode & 07777, ftype(st.st_mode), st.st_mode & 07777, yesno(strcmp(expect, text) == 0));
        int fd = open(path, O_RDONLY);
        struct stat fst;
        fstat(fd, &fst);
        out("%s: open %s, same node: %s", names[i], fd >= 0 ? "ok" : errname(errno), yesno(fst.st_ino == st.st_ino && fst.st_dev == st.st_dev));
        char b[8];
        out("%s: read %s", names[i], read(fd, b, sizeof b) < 0 ? errname(errno) : "ok");
        close(fd);
    }
    struct stat mine, parent_st;
    stat("/proc/self/ns/mnt", &mine);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", getppid());
    stat(path, &parent_st);
    out("parent's mnt node is mine: %s", yesno(mine.st_ino == parent_st.st_ino && mine.st_dev == parent_st.st_dev));
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        char t[64];
        ssize_t n = readlink(path, t, sizeof t);
        out("uid 1000 readlink of root's link: %s", n < 0 ? errname(errno) : "ok");
        out("uid 1000 open of root's link: %s", open(path, O_RDONLY) < 0 ? errname(errno) : "ok");
        n = readlink("/proc/self/ns/uts", t, sizeof t);
        out("uid 1000 readlink of own link: %s", n < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("uid 1000 child", pid);
    return 0;
}
