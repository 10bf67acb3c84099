/* Ambient capabilities (PR_CAP_AMBIENT): IS_SET, RAISE needing the
 * capability permitted and inheritable (EPERM), bad operations and
 * arguments (EINVAL), LOWER, CLEAR_ALL; capset dropping it from the
 * inheritable set lowers it; an unprivileged exec keeps it (permitted and
 * effective) and /proc/self/status shows it in CapAmb. */
#include "perm.h"

#define AMB PR_CAP_AMBIENT
static int is_set(int cap) { return prctl(AMB, PR_CAP_AMBIENT_IS_SET, cap, 0, 0); }

static void caps(const char *label)
{
    struct perm_cap_header h = {0x20080522, 0};
    struct perm_cap_data d[2];
    syscall(SYS_capget, &h, d);
    out("%s: net_bind permitted %d effective %d inheritable %d ambient %d", label,
        !!(d[0].permitted & (1u << CAP_NET_BIND_SERVICE_)), !!(d[0].effective & (1u << CAP_NET_BIND_SERVICE_)),
        !!(d[0].inheritable & (1u << CAP_NET_BIND_SERVICE_)), is_set(CAP_NET_BIND_SERVICE_));
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        caps("after exec as uid 1000");
        show("kill ambient", is_set(CAP_KILL_));
        return 0;
    }
    show("IS_SET net_bind", is_set(CAP_NET_BIND_SERVICE_));
    show("IS_SET 99", prctl(AMB, PR_CAP_AMBIENT_IS_SET, 99, 0, 0));
    show("IS_SET with arg4", prctl(AMB, PR_CAP_AMBIENT_IS_SET, CAP_KILL_, 1, 0));
    show("bad operation", prctl(AMB, 9, CAP_KILL_, 0, 0));
    show("CLEAR_ALL with arg3", prctl(AMB, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0));
    show("RAISE net_bind, not inheritable", prctl(AMB, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE_, 0, 0));
    struct perm_cap_header h = {0x20080522, 0};
    struct perm_cap_data d[2];
    syscall(SYS_capget, &h, d);
    d[0].inheritable |= (1u << CAP_NET_BIND_SERVICE_) | (1u << CAP_KILL_);
    show("capset inheritable", syscall(SYS_capset, &h, d));
    show("RAISE net_bind", prctl(AMB, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE_, 0, 0));
    show("RAISE kill", prctl(AMB, PR_CAP_AMBIENT_RAISE, CAP_KILL_, 0, 0));
    show("IS_SET kill", is_set(CAP_KILL_));
    show("LOWER kill", prctl(AMB, PR_CAP_AMBIENT_LOWER, CAP_KILL_, 0, 0));
    show("IS_SET kill", is_set(CAP_KILL_));
    show("RAISE kill", prctl(AMB, PR_CAP_AMBIENT_RAISE, CAP_KILL_, 0, 0));
    syscall(SYS_capget, &h, d);
    d[0].inheritable &= ~(1u << CAP_KILL_);
    show("capset without kill inheritable", syscall(SYS_capset, &h, d));
    show("IS_SET kill", is_set(CAP_KILL_));
    pid_t child = fork();
    if (child == 0) {
        show("child: CLEAR_ALL", prctl(AMB, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
        show("child: IS_SET net_bind", is_set(CAP_NET_BIND_SERVICE_));
        _exit(0);
    }
    reap("child", child);
    caps("parent");
    child = fork();
    if (child == 0) {
        /* Keep the permitted set across setresuid so the ambient set can
         * survive it: with keepcaps, a uid change still clears ambient. */
        prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
        if (setresuid(1000, 1000, 1000) != 0)
            _exit(1);
        caps("after setresuid with keepcaps");
        struct perm_cap_header h2 = {0x20080522, 0};
        struct perm_cap_data d2[2];
        syscall(SYS_capget, &h2, d2);
        d2[0].effective = d2[0].permitted;
        syscall(SYS_capset, &h2, d2);
        show("RAISE net_bind again", prctl(AMB, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE_, 0, 0));
        execl("/proc/self/exe", argv[0], "after", (char *)NULL);
        out("exec: %s", errname(errno));
        _exit(1);
    }
    reap("exec child", child);
    return 0;
}
