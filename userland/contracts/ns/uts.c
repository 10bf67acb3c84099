/* UTS namespaces: a child that unshares CLONE_NEWUTS changes its host and
 * domain names (uname, /proc/sys/kernel/hostname) without changing its
 * parent's; its /proc/self/ns/uts link changes, its mount namespace link
 * does not; its own children inherit its names; a clone(CLONE_NEWUTS)
 * child starts with a copy of the names. */
#include "../common.h"
#include <sched.h>
#include <sys/utsname.h>

static void show_names(const char *who)
{
    struct utsname u;
    uname(&u);
    char text[128] = "";
    int fd = open("/proc/sys/kernel/hostname", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = 0;
    out("%s: nodename %s domainname %s /proc hostname %s", who, u.nodename, u.domainname, text);
}

static void link_of(const char *path, char *buf, size_t n)
{
    ssize_t r = readlink(path, buf, n - 1);
    buf[r > 0 ? r : 0] = 0;
}

int main(void)
{
    check("sethostname(parent)", sethostname("parent", 6));
    check("setdomainname(pdomain)", setdomainname("pdomain", 7));
    char uts0[64], mnt0[64];
    link_of("/proc/self/ns/uts", uts0, sizeof uts0);
    link_of("/proc/self/ns/mnt", mnt0, sizeof mnt0);
    int up[2], down[2];
    pipe(up);
    pipe(down);
    pid_t pid = fork();
    if (pid == 0) {
        check("child unshare(CLONE_NEWUTS)", unshare(CLONE_NEWUTS));
        char uts1[64], mnt1[64];
        link_of("/proc/self/ns/uts", uts1, sizeof uts1);
        link_of("/proc/self/ns/mnt", mnt1, sizeof mnt1);
        out("child uts link changed: %s", yesno(strcmp(uts0, uts1) != 0));
        out("child mnt link changed: %s", yesno(strcmp(mnt0, mnt1) != 0));
        show_names("child before");
        check("child sethostname(inner)", sethostname("inner", 5));
        check("child setdomainname(idomain)", setdomainname("idomain", 7));
        show_names("child after");
        pid_t g = fork();
        if (g == 0) {
            show_names("grandchild");
            _exit(0);
        }
        waitpid(g, NULL, 0);
        write(up[1], "x", 1);
        char c;
        read(down[0], &c, 1); /* wait until the parent has looked */
        _exit(0);
    }
    char c;
    read(up[0], &c, 1);
    show_names("parent");
    char path[64], their[64];
    snprintf(path, sizeof path, "/proc/%d/ns/uts", pid);
    link_of(path, their, sizeof their);
    out("child's uts link differs from parent's: %s", yesno(strcmp(their, uts0) != 0));
    write(down[1], "x", 1);
    reap("child", pid);
    long r = syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0);
    if (r == 0) {
        show_names("clone(CLONE_NEWUTS) child");
        sethostname("other", 5);
        _exit(0);
    }
    reap("clone child", r);
    show_names("parent at end");
    return 0;
}
