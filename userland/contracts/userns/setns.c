/* Entering and inspecting user namespaces: a child made with
 * clone(CLONE_NEWUSER) by root reads the overflow id until its parent
 * writes its uid_map (a privileged writer may map any range), then sees
 * itself as root; the nsfs ioctls NS_GET_USERNS, NS_GET_PARENT and
 * NS_GET_OWNER_UID on its namespace; setns into it (root: yes; its own
 * namespace again: EINVAL; uid 1000 that does not own it: EPERM). */
#include "../common.h"
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#define NSIO 0xb7
#define NS_GET_USERNS _IO(NSIO, 0x1)
#define NS_GET_PARENT _IO(NSIO, 0x2)
#define NS_GET_OWNER_UID _IO(NSIO, 0x4)

static int same(int a, int b)
{
    struct stat x, y;
    if (fstat(a, &x) < 0 || fstat(b, &y) < 0)
        return -1;
    return x.st_ino == y.st_ino && x.st_dev == y.st_dev;
}

int main(void)
{
    int go[2], done[2];
    pipe(go);
    pipe(done);
    char c;
    pid_t pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) {
        out("child before map: uid %d", (int)getuid());
        write(done[1], "x", 1);
        read(go[0], &c, 1);
        out("child after map: uid %d euid %d gid %d", (int)getuid(), (int)geteuid(), (int)getgid());
        int me = open("/proc/self/ns/user", O_RDONLY);
        int owner = ioctl(me, NS_GET_USERNS);
        out("child NS_GET_USERNS: %s", owner < 0 ? errname(errno) : "fd");
        int parent = ioctl(me, NS_GET_PARENT);
        out("child NS_GET_PARENT: %s", parent < 0 ? errname(errno) : "fd");
        uid_t uid = 77;
        int rc = ioctl(me, NS_GET_OWNER_UID, &uid);
        out("child NS_GET_OWNER_UID: %s %d", rc < 0 ? errname(errno) : "ok", (int)uid);
        check("child setns into its own", setns(me, CLONE_NEWUSER));
        write(done[1], "x", 1);
        read(go[0], &c, 1);
        _exit(0);
    }
    read(done[0], &c, 1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    int fd = open(path, O_WRONLY);
    out("write child's uid_map: %s", write(fd, "0 0 10\n", 7) == 7 ? "ok" : errname(errno));
    close(fd);
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
    fd = open(path, O_WRONLY);
    out("write child's gid_map: %s", write(fd, "0 0 10\n", 7) == 7 ? "ok" : errname(errno));
    close(fd);
    write(go[1], "x", 1);
    read(done[0], &c, 1);

    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
    int child_ns = open(path, O_RDONLY);
    int mine = open("/proc/self/ns/user", O_RDONLY);
    int p = ioctl(child_ns, NS_GET_PARENT);
    out("NS_GET_PARENT of the child's: %s", p < 0 ? errname(errno) : same(p, mine) == 1 ? "ours" : "other");
    int o = ioctl(child_ns, NS_GET_USERNS);
    out("NS_GET_USERNS of the child's: %s", o < 0 ? errname(errno) : same(o, mine) == 1 ? "ours" : "other");
    uid_t uid = 77;
    int rc = ioctl(child_ns, NS_GET_OWNER_UID, &uid);
    out("NS_GET_OWNER_UID of the child's: %s %d", rc < 0 ? errname(errno) : "ok", (int)uid);
    out("NS_GET_PARENT of ours: %s", ioctl(mine, NS_GET_PARENT) < 0 ? errname(errno) : "fd");
    out("NS_GET_USERNS of ours: %s", ioctl(mine, NS_GET_USERNS) < 0 ? errname(errno) : "fd");
    int uts = open("/proc/self/ns/uts", O_RDONLY);
    int u = ioctl(uts, NS_GET_USERNS);
    out("NS_GET_USERNS of our uts: %s", u < 0 ? errname(errno) : same(u, mine) == 1 ? "ours" : "other");
    out("NS_GET_OWNER_UID of uts: %s", ioctl(uts, NS_GET_OWNER_UID, &uid) < 0 ? errname(errno) : "ok");

    pid_t q = fork();
    if (q == 0) {
        if (setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        check("uid 1000 setns into root's child ns", setns(child_ns, CLONE_NEWUSER));
        _exit(0);
    }
    reap("uid 1000", q);
    q = fork();
    if (q == 0) {
        check("setns(CLONE_NEWNET) on a user ns fd", setns(child_ns, CLONE_NEWNET));
        check("setns into the child's", setns(child_ns, CLONE_NEWUSER));
        out("after setns: uid %d", (int)getuid());
        int now = open("/proc/self/ns/user", O_RDONLY);
        out("now in the child's: %s", same(now, child_ns) == 1 ? "yes" : "no");
        _exit(0);
    }
    reap("setns child", q);
    write(go[1], "x", 1);
    reap("child", pid);
    return 0;
}
