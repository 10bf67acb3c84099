/* Polling /proc/self/mountinfo reports changes to the reader's own mount
 * namespace only (Linux counts events per namespace): mounts and
 * unmounts made by a child in a new namespace of private mounts leave the
 * parent's descriptor quiet, while the child's own descriptor, opened in
 * its namespace, sees them. */
#include "../common.h"
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>

static void show_poll(const char *label, int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLPRI};
    int n = poll(&p, 1, 0);
    out("%s: poll %d revents%s%s%s", label, n, p.revents & POLLIN ? " IN" : "", p.revents & POLLPRI ? " PRI" : "",
        p.revents & POLLERR ? " ERR" : "");
}

int main(void)
{
    mkdir("pn", 0755);
    check("mount tmpfs on pn", mount("none", "pn", "tmpfs", 0, NULL));
    check("make pn private", mount(NULL, "pn", NULL, MS_PRIVATE, NULL));
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    show_poll("parent fresh", fd);
    int pipefd[2];
    check("pipe", pipe(pipefd));
    pid_t child = fork();
    if (child == 0) {
        check("child unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("child make / private", mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
        int mine = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        show_poll("child fresh", mine);
        mkdir("pn/m", 0755);
        check("child mount pn/m", mount("none", "pn/m", "tmpfs", 0, NULL));
        show_poll("child after mount", mine);
        check("child umount pn/m", umount("pn/m"));
        show_poll("child after umount", mine);
        _exit(0);
    }
    reap("child", child);
    show_poll("parent after the child's mounts", fd);
    mkdir("pn/p", 0755);
    check("parent mount pn/p", mount("none", "pn/p", "tmpfs", 0, NULL));
    show_poll("parent after its mount", fd);
    check("umount pn/p", umount("pn/p"));
    check("umount pn", umount("pn"));
    return 0;
}
