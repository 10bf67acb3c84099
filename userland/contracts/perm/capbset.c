/* The capability bounding set: PR_CAPBSET_READ for each capability and
 * past the last (EINVAL), PR_CAPBSET_DROP (needs CAP_SETPCAP: EPERM
 * without), inheritance across fork, what an exec by root then gets (the
 * dropped capability is in none of its sets), capset refusing to put it
 * in the inheritable set, and /proc/self/status's CapBnd. */
#include "perm.h"

static void status_line(const char *label, const char *key)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    ssize_t n = fd >= 0 ? read_full(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    buf[n] = 0;
    char *p = strstr(buf, key);
    if (p) {
        char *e = strchr(p, '\n');
        if (e)
            *e = 0;
        out("%s: %s", label, p);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        /* After the exec. */
        show("exec: CAPBSET_READ sys_time", prctl(PR_CAPBSET_READ, CAP_SYS_TIME_, 0, 0, 0));
        struct perm_cap_header h = {0x20080522, 0};
        struct perm_cap_data d[2];
        syscall(SYS_capget, &h, d);
        out("exec: sys_time permitted %d effective %d", !!(d[0].permitted & (1u << CAP_SYS_TIME_)),
            !!(d[0].effective & (1u << CAP_SYS_TIME_)));
        out("exec: kill permitted %d", !!(d[0].permitted & (1u << CAP_KILL_)));
        status_line("exec", "CapBnd");
        return 0;
    }
    int last = 0;
    while (prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0) == 1)
        last++;
    out("last readable capability: %d", last);
    show("CAPBSET_READ last+1", prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0));
    show("CAPBSET_READ -1", prctl(PR_CAPBSET_READ, -1L, 0, 0, 0));
    status_line("start", "CapBnd");
    show("CAPBSET_DROP last+1", prctl(PR_CAPBSET_DROP, last + 1, 0, 0, 0));
    show("CAPBSET_DROP sys_time", prctl(PR_CAPBSET_DROP, CAP_SYS_TIME_, 0, 0, 0));
    show("CAPBSET_READ sys_time", prctl(PR_CAPBSET_READ, CAP_SYS_TIME_, 0, 0, 0));
    show("CAPBSET_DROP sys_time again", prctl(PR_CAPBSET_DROP, CAP_SYS_TIME_, 0, 0, 0));
    status_line("dropped", "CapBnd");
    struct perm_cap_header h = {0x20080522, 0};
    struct perm_cap_data d[2];
    syscall(SYS_capget, &h, d);
    out("still permitted now: %d", !!(d[0].permitted & (1u << CAP_SYS_TIME_)));
    d[0].inheritable |= 1u << CAP_SYS_TIME_;
    show("capset inheritable sys_time", syscall(SYS_capset, &h, d));
    pid_t child = fork();
    if (child == 0) {
        show("child: CAPBSET_READ sys_time", prctl(PR_CAPBSET_READ, CAP_SYS_TIME_, 0, 0, 0));
        if (setresuid(1000, 1000, 1000) != 0)
            _exit(1);
        show("unprivileged: CAPBSET_DROP kill", prctl(PR_CAPBSET_DROP, CAP_KILL_, 0, 0, 0));
        show("unprivileged: CAPBSET_READ kill", prctl(PR_CAPBSET_READ, CAP_KILL_, 0, 0, 0));
        _exit(0);
    }
    reap("child", child);
    child = fork();
    if (child == 0) {
        execl("/proc/self/exe", argv[0], "after", (char *)NULL);
        out("exec: %s", errname(errno));
        _exit(1);
    }
    reap("exec child", child);
    return 0;
}
