/* Installed set-user-id and set-group-id root (mode 6755, see
 * tools/contracts.py): prints the ids, AT_SECURE, dumpability and the
 * capability sets it runs with (perm/setuid-exec). */
#include "../common.h"
#include <sys/auxv.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
    uid_t r, e, s;
    gid_t rg, eg, sg;
    getresuid(&r, &e, &s);
    getresgid(&rg, &eg, &sg);
    long fsuid = syscall(SYS_setfsuid, -1), fsgid = syscall(SYS_setfsgid, -1);
    struct { uint32_t version; int pid; } h = { 0x20080522, 0 };
    struct { uint32_t effective, permitted, inheritable; } d[2];
    syscall(SYS_capget, &h, d);
    out("%s uid %u %u %u gid %u %u %u fs %ld %ld secure %lu dumpable %d eff %x%08x prm %x%08x", argc > 1 ? argv[1] : "",
        (unsigned)r, (unsigned)e, (unsigned)s, (unsigned)rg, (unsigned)eg, (unsigned)sg, fsuid, fsgid,
        getauxval(AT_SECURE), prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), d[1].effective, d[0].effective, d[1].permitted,
        d[0].permitted);
    return 0;
}
