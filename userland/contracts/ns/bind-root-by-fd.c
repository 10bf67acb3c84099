/* A recursive bind of / made through an O_PATH descriptor of the target
 * (mount("/", "/proc/self/fd/N", MS_BIND|MS_REC)), as systemd's namespace
 * setup binds / on /run/systemd/unit-root for every service with
 * PrivateMounts=, ProtectHostname=, ProtectSystem=...: the new mount lands
 * on the target directory, / and its submounts stay as they were (the
 * process's /proc and /dev still answer), and the copy carries the
 * submounts (/proc under the target). systemd-udevd.service failed with
 * status 226/NAMESPACE when /proc/self/mountinfo was ENOENT right after
 * this bind. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

static void show_open(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    out("open %s: %s", path, fd >= 0 ? "ok" : errname(errno));
    if (fd >= 0)
        close(fd);
}

int main(void)
{
    char cwd[512];
    if (!getcwd(cwd, sizeof cwd)) {
        out("getcwd: %s", errname(errno));
        return 0;
    }
    mkdir("/bind-root-by-fd", 0755);
    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("make / slave recursively", mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL));
        check("mount tmpfs on /bind-root-by-fd", mount("none", "/bind-root-by-fd", "tmpfs", 0, NULL));
        check("mkdir unit-root", mkdir("/bind-root-by-fd/unit-root", 0700));
        int fd = open("/bind-root-by-fd/unit-root", O_PATH | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            out("open O_PATH unit-root: %s", errname(errno));
            _exit(0);
        }
        char target[64];
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
        check("bind / on unit-root by fd, recursively", mount("/", target, NULL, MS_BIND | MS_REC, NULL));
        close(fd);
        show_open("/proc/self/mountinfo");
        show_open("/dev/null");
        show_open("/bind-root-by-fd/unit-root/proc/self/mountinfo");
        show_open("/bind-root-by-fd/unit-root/dev/null");
        struct stat st;
        out("stat unit-root/bind-root-by-fd/unit-root: %s",
            stat("/bind-root-by-fd/unit-root/bind-root-by-fd/unit-root", &st) == 0 ? "ok" : errname(errno));
        _exit(0);
    }
    reap("child", pid);
    show_open("/proc/self/mountinfo");
    check("rmdir /bind-root-by-fd", rmdir("/bind-root-by-fd"));
    return 0;
}
