/* getrlimit/setrlimit/prlimit64: Linux's defaults for init's children,
 * lowering limits, EINVAL for soft > hard, EPERM for raising the hard limit
 * as non-root, and RLIMIT_NOFILE enforced by open. */
#include "common.h"
#include <sys/resource.h>

static void show_lim(const char *name, int res)
{
    struct rlimit r;
    getrlimit(res, &r);
    char a[32], b[32];
    if (r.rlim_cur == RLIM_INFINITY) strcpy(a, "unlimited"); else snprintf(a, sizeof a, "%llu", (unsigned long long)r.rlim_cur);
    if (r.rlim_max == RLIM_INFINITY) strcpy(b, "unlimited"); else snprintf(b, sizeof b, "%llu", (unsigned long long)r.rlim_max);
    out("%s: soft=%s hard=%s", name, a, b);
}

int main(void)
{
    show_lim("RLIMIT_NOFILE", RLIMIT_NOFILE);
    show_lim("RLIMIT_STACK", RLIMIT_STACK);
    show_lim("RLIMIT_CORE", RLIMIT_CORE);
    show_lim("RLIMIT_AS", RLIMIT_AS);
    show_lim("RLIMIT_FSIZE", RLIMIT_FSIZE);
    show_lim("RLIMIT_DATA", RLIMIT_DATA);
    show_lim("RLIMIT_CPU", RLIMIT_CPU);
    show_lim("RLIMIT_MEMLOCK", RLIMIT_MEMLOCK);

    struct rlimit r = {10, 100};
    check("setrlimit NOFILE 10/100", setrlimit(RLIMIT_NOFILE, &r));
    show_lim("RLIMIT_NOFILE", RLIMIT_NOFILE);
    int last = -1, fd;
    while ((fd = open("/", O_RDONLY)) >= 0)
        last = fd;
    out("last fd opened: %d, then: %s", last, errname(errno));
    out("dup2 to fd 50: %s", dup2(0, 50) < 0 ? errname(errno) : "ok");
    r.rlim_cur = 200;
    check("soft above hard", setrlimit(RLIMIT_NOFILE, &r));

    struct { unsigned long long cur, max; } nl = {20, 90}, old;
    check("prlimit64 set+get", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &nl, &old));
    out("prlimit64 old: %llu/%llu", old.cur, old.max);
    check("prlimit64 get", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &old));
    out("prlimit64 now: %llu/%llu", old.cur, old.max);
    check("prlimit64 bad resource", syscall(SYS_prlimit64, 0, 99, NULL, &old));
    check("prlimit64 no such pid", syscall(SYS_prlimit64, 999999, RLIMIT_NOFILE, NULL, &old));
    check("getrlimit bad resource", getrlimit(99, &r));

    pid_t pid = fork();
    if (pid == 0) {
        show_lim("child inherits RLIMIT_NOFILE", RLIMIT_NOFILE);
        setuid(1000);
        struct rlimit up = {20, 1000};
        check("non-root raises hard limit", setrlimit(RLIMIT_NOFILE, &up));
        struct rlimit down = {5, 50};
        check("non-root lowers hard limit", setrlimit(RLIMIT_NOFILE, &down));
        struct rlimit back = {5, 90};
        check("non-root raises it back", setrlimit(RLIMIT_NOFILE, &back));
        _exit(0);
    }
    reap("child", pid);
    return 0;
}
