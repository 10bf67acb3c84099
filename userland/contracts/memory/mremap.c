/* mremap: shrinking in place, growing with MREMAP_MAYMOVE keeps contents,
 * MREMAP_FIXED moves to a chosen address, errors for bad arguments. */
#include "fault.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 4; i++)
        p[i * pg] = 'a' + i;
    char *q = mremap(p, 4 * pg, 2 * pg, 0);
    out("shrink in place: %s", q == p ? "same address" : (q == MAP_FAILED ? errname(errno) : "moved"));
    out("byte past the shrunk end: %s", try_read(p + 2 * pg));
    /* Block growth in place by mapping right after it. */
    char *blocker = mmap(p + 2 * pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    (void)blocker;
    q = mremap(p, 2 * pg, 8 * pg, 0);
    out("grow without MAYMOVE when blocked: %s", q == MAP_FAILED ? errname(errno) : "ok");
    q = mremap(p, 2 * pg, 8 * pg, MREMAP_MAYMOVE);
    out("grow with MAYMOVE: %s", q == MAP_FAILED ? errname(errno) : "ok");
    out("contents kept: %c %c", q[0], q[pg]);
    out("new tail zero: %d", q[7 * pg]);
    q[7 * pg] = 'z';
    out("old address gone: %s", q != p ? try_read(p) : "not moved");

    char *target = mmap(NULL, 8 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *r = mremap(q, 8 * pg, 8 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, target);
    out("MREMAP_FIXED lands at target: %s", yesno(r == target));
    out("contents at target: %c %c %c", r[0], r[pg], r[7 * pg]);

    errno = 0;
    void *e = mremap(r + 1, pg, pg, 0);
    out("unaligned old address: %s", e == MAP_FAILED ? errname(errno) : "ok");
    e = mremap(r, pg, 0, 0);
    out("new size 0: %s", e == MAP_FAILED ? errname(errno) : "ok");
    e = mremap(r, pg, pg, MREMAP_FIXED, target + 64 * pg);
    out("FIXED without MAYMOVE: %s", e == MAP_FAILED ? errname(errno) : "ok");
    e = mremap(r, pg, 2 * pg, 0x80);
    out("bad flags: %s", e == MAP_FAILED ? errname(errno) : "ok");
    munmap(r, 8 * pg);
    e = mremap(r, pg, 2 * pg, MREMAP_MAYMOVE);
    out("unmapped old address: %s", e == MAP_FAILED ? errname(errno) : "ok");
    return 0;
}
