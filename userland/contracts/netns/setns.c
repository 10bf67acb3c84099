/* Moving between network namespaces: a child made by clone(CLONE_NEWNET)
 * starts in a new one (lo down), /proc/PID/ns/net of two processes in
 * one namespace are the same node and differ across them, setns with a
 * net namespace fd enters it (nstype 0 or CLONE_NEWNET; CLONE_NEWUTS is
 * EINVAL), and a namespace stays alive while an fd holds it after its
 * last process left: entering it again finds lo as it was left. */
#include "netns.h"
#include <sys/stat.h>

static ino_t ino_of(const char *path)
{
    struct stat st;
    return stat(path, &st) < 0 ? 0 : st.st_ino;
}

static void lo_state(const char *label)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
        out("%s: SIOCGIFFLAGS %s", label, errname(errno));
    else
        out("%s: lo up %s", label, yesno(r.ifr_flags & IFF_UP));
    close(s);
}

int main(void)
{
    lo_up();
    ino_t root = ino_of("/proc/self/ns/net");
    int rootfd = open("/proc/self/ns/net", O_RDONLY);
    lo_state("first namespace");

    pid_t pid = syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) {
        out("clone child: ns differs %s", yesno(ino_of("/proc/self/ns/net") != root));
        lo_state("clone child");
        out("clone child: RTM_NEWLINK lo up: %s", nlerr(link_set_up(1, 1)));
        lo_state("clone child");
        _exit(0);
    }
    reap("clone child", pid);

    int pfd[2];
    if (pipe(pfd) < 0)
        return 1;
    pid = fork();
    if (pid == 0) {
        unshare(CLONE_NEWNET);
        link_set_up(1, 1);
        char c = 1;
        write(pfd[1], &c, 1);
        pause();
        _exit(0);
    }
    char c;
    read(pfd[0], &c, 1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/net", pid);
    out("unshared child: ns differs %s", yesno(ino_of(path) != root));
    int childfd = open(path, O_RDONLY);
    kill(pid, SIGKILL);
    reap("unshared child", pid);

    check("setns(net fd, CLONE_NEWUTS)", setns(childfd, CLONE_NEWUTS));
    check("setns(net fd, CLONE_NEWNET)", setns(childfd, CLONE_NEWNET));
    struct stat a, b;
    fstat(childfd, &a);
    stat("/proc/self/ns/net", &b);
    out("after setns: /proc/self/ns/net is the fd's namespace %s", yesno(a.st_ino == b.st_ino));
    lo_state("after setns");
    out("tcp connect 127.0.0.1:5200: %s", try_connect(SOCK_STREAM, 5200));
    check("setns(first fd, 0)", setns(rootfd, 0));
    out("back: /proc/self/ns/net is the first %s", yesno(ino_of("/proc/self/ns/net") == root));
    lo_state("back");
    return 0;
}
