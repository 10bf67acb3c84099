/* Capability sets: capget/capset (version negotiation, subset rules),
 * PR_SET_KEEPCAPS across a uid change, and what setuid and exec do to the
 * sets, as /proc/self/status and capget show them. */
#include "common.h"
#include <sys/prctl.h>

struct cap_header { uint32_t version; int pid; };
struct cap_data { uint32_t effective, permitted, inheritable; };
#define V3 0x20080522

static void show_caps(const char *label)
{
    struct cap_header h = { V3, 0 };
    struct cap_data d[2];
    if (syscall(SYS_capget, &h, d) != 0) {
        out("%s: capget %s", label, errname(errno));
        return;
    }
    out("%s: eff %08x%08x prm %08x%08x inh %08x%08x", label, d[1].effective, d[0].effective,
        d[1].permitted, d[0].permitted, d[1].inheritable, d[0].inheritable);
}

static int set_caps(uint64_t eff, uint64_t prm, uint64_t inh)
{
    struct cap_header h = { V3, 0 };
    struct cap_data d[2] = {
        { (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
        { (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32) },
    };
    return syscall(SYS_capset, &h, d) == 0 ? 0 : errno;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        show_caps("  after exec as uid 1000");
        return 0;
    }
    show_caps("root");
    struct cap_header h = { 0x12345678, 0 };
    struct cap_data d[2];
    show("capget(bad version)", syscall(SYS_capget, &h, d));
    out("  version written back: %#x", h.version);
    h.version = 0x12345678;
    show("capget(bad version, no data)", syscall(SYS_capget, &h, NULL));
    h.version = V3;
    h.pid = 999999;
    show("capget(no such pid)", syscall(SYS_capget, &h, d));
    show("prctl(PR_CAPBSET_READ, 40)", prctl(PR_CAPBSET_READ, 40, 0, 0, 0));
    show("prctl(PR_CAPBSET_READ, 41)", prctl(PR_CAPBSET_READ, 41, 0, 0, 0));
    show("prctl(PR_SET_KEEPCAPS, 2)", prctl(PR_SET_KEEPCAPS, 2, 0, 0, 0));

    /* Whatever root holds here (every capability under a plain kernel). */
    struct cap_header h0 = { V3, 0 };
    struct cap_data d0[2];
    syscall(SYS_capget, &h0, d0);
    uint64_t all = (uint64_t)d0[1].permitted << 32 | d0[0].permitted;
    pid_t pid = fork();
    if (pid == 0) {
        out("  capset(drop CAP_KILL from effective): %s", errname(set_caps(all & ~(1ULL << 5), all, 0)));
        show_caps("  after");
        out("  capset(effective beyond permitted): %s", errname(set_caps(all, all & ~1ULL, 0)));
        out("  capset(drop bit 0 from permitted): %s", errname(set_caps(all & ~1ULL, all & ~1ULL, 0)));
        out("  capset(raise it again): %s", errname(set_caps(all, all, 0)));
        show_caps("  after");
        _exit(0);
    }
    reap("capset child", pid);

    pid = fork();
    if (pid == 0) {
        setresuid(1000, 1000, 1000);
        show_caps("  setresuid(1000) without keepcaps");
        _exit(0);
    }
    reap("no keepcaps child", pid);

    pid = fork();
    if (pid == 0) {
        show("  prctl(PR_SET_KEEPCAPS, 1)", prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
        show("  prctl(PR_GET_KEEPCAPS)", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
        setresuid(1000, 1000, 1000);
        show_caps("  setresuid(1000) with keepcaps");
        out("  capset(effective back from permitted): %s", errname(set_caps(1ULL << 5, all, 0)));
        show_caps("  after");
        char *args[] = {argv[0], "exec", NULL};
        execv(argv[0], args);
        _exit(1);
    }
    reap("keepcaps child", pid);

    pid = fork();
    if (pid == 0) {
        setresuid(-1, 1000, -1);
        show_caps("  effective uid 1000 (real 0)");
        setresuid(-1, 0, -1);
        show_caps("  effective uid 0 again");
        _exit(0);
    }
    reap("euid child", pid);
    return 0;
}
