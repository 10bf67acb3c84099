/* setns(2): joining a child's UTS namespace by its /proc/PID/ns/uts fd
 * (with nstype 0 or CLONE_NEWUTS; another type is EINVAL) and by a pidfd
 * with a mask; the errors: EBADF, EINVAL for a file that is no namespace
 * and for a pidfd mask of 0 or unknown bits, EPERM for uid 1000; a mount
 * namespace joined by its fd brings the child's mounts. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/utsname.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static void show_host(const char *label)
{
    struct utsname u;
    uname(&u);
    out("%s: %s", label, u.nodename);
}

static char scratch[256];

int main(void)
{
    getcwd(scratch, sizeof scratch);
    sethostname("outer", 5);
    mkdir("m", 0755);
    int ready[2], done[2];
    pipe(ready);
    pipe(done);
    pid_t pid = fork();
    if (pid == 0) {
        unshare(CLONE_NEWUTS | CLONE_NEWNS);
        sethostname("inner", 5);
        mount("none", "m", "tmpfs", 0, NULL);
        put_file("m/file", "in the child's namespace\n");
        write(ready[1], "x", 1);
        char c;
        read(done[0], &c, 1);
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/uts", pid);
    int uts = open(path, O_RDONLY);
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", pid);
    int mnt = open(path, O_RDONLY);
    int pidfd = syscall(SYS_pidfd_open, pid, 0);
    int pipe_fd = ready[1];
    check("setns(-1, 0)", setns(-1, 0));
    check("setns(pipe, 0)", setns(pipe_fd, 0));
    check("setns(uts fd, CLONE_NEWNET)", setns(uts, CLONE_NEWNET));
    check("setns(uts fd, CLONE_NEWNS)", setns(uts, CLONE_NEWNS));
    check("setns(pidfd, 0)", setns(pidfd, 0));
    check("setns(pidfd, CLONE_VM)", setns(pidfd, CLONE_VM));
    show_host("before");
    pid_t p2 = fork();
    if (p2 == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        check("uid 1000 setns(uts fd, 0)", setns(uts, 0));
        check("uid 1000 setns(pidfd, CLONE_NEWUTS)", setns(pidfd, CLONE_NEWUTS));
        _exit(0);
    }
    reap("uid 1000 child", p2);
    p2 = fork();
    if (p2 == 0) {
        check("setns(pidfd, CLONE_NEWUTS)", setns(pidfd, CLONE_NEWUTS));
        show_host("after pidfd setns");
        _exit(0);
    }
    reap("pidfd child", p2);
    p2 = fork();
    if (p2 == 0) {
        check("setns(mnt fd, CLONE_NEWNS)", setns(mnt, CLONE_NEWNS));
        char cwd[256];
        out("cwd after: %s", getcwd(cwd, sizeof cwd) ? cwd : errname(errno));
        char file[300];
        struct stat st;
        snprintf(file, sizeof file, "%s/m/file", scratch);
        out("m/file in the child's namespace: %s", stat(file, &st) < 0 ? errname(errno) : "present");
        _exit(0);
    }
    reap("mnt child", p2);
    struct stat st;
    out("m/file in the parent's namespace: %s", stat("m/file", &st) < 0 ? errname(errno) : "present");
    check("setns(uts fd, CLONE_NEWUTS)", setns(uts, CLONE_NEWUTS));
    show_host("after fd setns");
    sethostname("changed", 7);
    write(done[1], "x", 1);
    reap("child", pid);
    return 0;
}
