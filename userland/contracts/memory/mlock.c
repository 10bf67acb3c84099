/* mlock, mlock2 (MLOCK_ONFAULT), munlock, mlockall, munlockall: range
 * rounding, holes (ENOMEM), flags (EINVAL), VmLck in /proc/self/status,
 * RLIMIT_MEMLOCK for a process without CAP_IPC_LOCK (ENOMEM, EPERM at 0),
 * pages made resident, fork not inheriting locks. */
#include "common.h"
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

static long vmlck(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *p = strstr(buf, "VmLck:");
    return p ? strtol(p + 6, NULL, 10) : -1;
}

static int resident(char *p, size_t pages)
{
    unsigned char vec[64];
    if (mincore(p, pages * 4096, vec) != 0)
        return -1;
    int n = 0;
    for (size_t i = 0; i < pages; i++)
        n += vec[i] & 1;
    return n;
}

int main(void)
{
    long base = vmlck();
    out("VmLck at start: %ld kB", base);
    char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("resident before: %d", resident(p, 16));
    check("mlock 2 pages", mlock(p, 2 * 4096));
    out("resident after: %d, VmLck +%ld kB", resident(p, 16), vmlck() - base);
    check("mlock again (no double count)", mlock(p, 2 * 4096));
    out("VmLck +%ld kB", vmlck() - base);
    check("mlock unaligned start, 1 byte over a boundary", mlock(p + 4095, 2));
    out("VmLck +%ld kB", vmlck() - base);
    check("mlock length 0", mlock(p, 0));
    check("munlock first page", munlock(p, 4096));
    out("VmLck +%ld kB", vmlck() - base);
    rcheck("mlock2 bad flags", rawsys(SYS_mlock2, (long)p, 4096, 2, 0, 0, 0));
    rcheck("mlock2 MLOCK_ONFAULT 4 pages", rawsys(SYS_mlock2, (long)(p + 8 * 4096), 4 * 4096, MLOCK_ONFAULT, 0, 0, 0));
    out("onfault pages resident: %d, VmLck +%ld kB", resident(p + 8 * 4096, 4), vmlck() - base);
    check("munlock all 16", munlock(p, 16 * 4096));
    out("VmLck +%ld kB", vmlck() - base);
    munmap(p + 4 * 4096, 4096);
    check("mlock over a hole", mlock(p, 8 * 4096));
    check("munlock over a hole", munlock(p, 8 * 4096));
    check("mlock unmapped", mlock((void *)0x10000, 4096));
    rcheck("mlock wrapping length", rawsys(SYS_mlock, (long)p, -4096L * 2, 0, 0, 0, 0));
    rcheck("mlock length ~0 (rounds to 0)", rawsys(SYS_mlock, (long)p, -1L, 0, 0, 0, 0));
    rcheck("munlock wrapping length", rawsys(SYS_munlock, (long)p, -4096L * 2, 0, 0, 0, 0));
    munlock(p, 4 * 4096);
    out("VmLck after the failures +%ld kB", vmlck() - base);

    /* Unmapping a locked range unlocks it. */
    mlock(p, 4 * 4096);
    munmap(p, 2 * 4096);
    out("after munmap of 2 locked pages: VmLck +%ld kB", vmlck() - base);
    munlock(p + 2 * 4096, 2 * 4096);

    rcheck("mlockall 0", rawsys(SYS_mlockall, 0, 0, 0, 0, 0, 0));
    rcheck("mlockall 8", rawsys(SYS_mlockall, 8, 0, 0, 0, 0, 0));
    rcheck("mlockall MCL_ONFAULT alone", rawsys(SYS_mlockall, MCL_ONFAULT, 0, 0, 0, 0, 0));
    check("mlockall(MCL_FUTURE)", mlockall(MCL_FUTURE));
    char *q = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("a new mapping is locked and resident: VmLck +%ld kB, resident %d", vmlck() - base, resident(q, 4));
    pid_t pid = fork();
    if (pid == 0) {
        out("child: VmLck %ld kB", vmlck());
        _exit(0);
    }
    reap("child", pid);
    check("munlockall", munlockall());
    out("VmLck +%ld kB", vmlck() - base);
    char *ml = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
    out("MAP_LOCKED: VmLck +%ld kB, resident %d", vmlck() - base, resident(ml, 3));
    munmap(ml, 3 * 4096);
    out("unmapped: VmLck +%ld kB", vmlck() - base);
    check("mlockall(MCL_CURRENT | MCL_ONFAULT)", mlockall(MCL_CURRENT | MCL_ONFAULT));
    out("everything locked: %s", yesno(vmlck() > 0));
    munlockall();

    /* Without CAP_IPC_LOCK: RLIMIT_MEMLOCK. */
    pid = fork();
    if (pid == 0) {
        struct rlimit rl = {8192, 8192};
        setrlimit(RLIMIT_MEMLOCK, &rl);
        if (setuid(65534) != 0)
            _exit(9);
        char *r = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        check("nobody: mlock 2 pages (limit 8 KiB)", mlock(r, 2 * 4096));
        check("nobody: mlock the same 2 again", mlock(r, 2 * 4096));
        check("nobody: mlock a third", mlock(r + 2 * 4096, 4096));
        check("nobody: mlock 3 overlapping", mlock(r + 4096, 3 * 4096));
        check("nobody: mlockall(MCL_CURRENT)", mlockall(MCL_CURRENT));
        check("nobody: mlockall(MCL_FUTURE)", mlockall(MCL_FUTURE));
        void *big = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        out("nobody: mmap of 12 KiB under MCL_FUTURE: %s", big == MAP_FAILED ? errname(errno) : "ok");
        void *small = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        out("nobody: mmap of 4 KiB under MCL_FUTURE: %s", small == MAP_FAILED ? errname(errno) : "ok");
        munlockall();
        big = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
        out("nobody: MAP_LOCKED 12 KiB: %s", big == MAP_FAILED ? errname(errno) : "ok");
        check("nobody: munlock", munlock(r, 2 * 4096));
        rl.rlim_cur = rl.rlim_max = 0;
        setrlimit(RLIMIT_MEMLOCK, &rl);
        check("nobody: mlock with limit 0", mlock(r, 4096));
        rcheck("nobody: mlock2 bad flags with limit 0", rawsys(SYS_mlock2, (long)r, 4096, 2, 0, 0, 0));
        check("nobody: mlockall with limit 0", mlockall(MCL_CURRENT));
        check("nobody: munlock with limit 0", munlock(r, 4096));
        check("nobody: munlockall with limit 0", munlockall());
        _exit(0);
    }
    reap("nobody", pid);
    return 0;
}
