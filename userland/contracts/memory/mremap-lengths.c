/* mremap with lengths that wrap or reach past the user half: Linux checks
 * them (EINVAL, EFAULT) before touching any mapping; a shrink is an munmap
 * of the tail, done before the source is looked up. Run as an unprivileged
 * user too, since any user can make these calls. */
#include "common.h"
#include <sys/mman.h>

static void probe(const char *label, void *addr, unsigned long old_len, unsigned long new_len, int flags, void *target)
{
    errno = 0;
    void *r = (void *)syscall(SYS_mremap, addr, old_len, new_len, flags, target);
    if (r == MAP_FAILED)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %s", label, r == addr ? "same address" : "other address");
}

static void run(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *t = mmap(NULL, 4 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 'x';
    probe("old length wraps the address space", p, 0xffff803a342de100UL, 6, 0, 0);
    probe("old length ~0, new 1 page", p, ~0UL, pg, 0, 0);
    probe("new length ~0", p, pg, ~0UL, MREMAP_MAYMOVE, 0);
    probe("new length 1<<63", p, pg, 1UL << 63, MREMAP_MAYMOVE, 0);
    probe("grow past the mapping, old length too long", p, 64 * pg, 128 * pg, MREMAP_MAYMOVE, 0);
    probe("same length on an unmapped range", (void *)0x100000000UL, pg, pg, 0, 0);
    probe("shrink of an unmapped range", (void *)0x100000000UL, 2 * pg, pg, 0, 0);
    probe("grow of an unmapped range", (void *)0x100000000UL, pg, 2 * pg, MREMAP_MAYMOVE, 0);
    probe("FIXED target wraps", p, pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(~0UL & ~(pg - 1)));
    probe("FIXED target in the kernel half", p, pg, pg, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)0xffff800000000000UL);
    probe("FIXED, old length wraps", p, 0xfffffffffff00000UL, pg, MREMAP_MAYMOVE | MREMAP_FIXED, t);
    probe("DONTUNMAP with different lengths", p, pg, 2 * pg, MREMAP_MAYMOVE | 4, 0);
    out("first page still there: %c", p[0]);
}

int main(void)
{
    out("-- as root");
    run();
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) || setuid(65534))
            out("drop privileges failed: %s", errname(errno));
        out("-- as nobody");
        run();
        _exit(0);
    }
    reap("nobody child", pid);
    return 0;
}
