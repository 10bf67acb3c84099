/* MAP_FIXED replaces what was there; MAP_FIXED_NOREPLACE fails with EEXIST
 * over an existing mapping and succeeds at the exact address otherwise. */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(p, 'o', 4 * pg);
    char *q = mmap(p + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    out("MAP_FIXED at requested address: %s", yesno(q == p + pg));
    out("replaced page is zero: %d; neighbours kept: %c %c", q[0], p[0], p[2 * pg]);

    errno = 0;
    void *r = mmap(p + 2 * pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    out("NOREPLACE over existing: %s", r == MAP_FAILED ? errname(errno) : "mapped");
    r = mmap(p + 3 * pg, 2 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    out("NOREPLACE partly overlapping: %s", r == MAP_FAILED ? errname(errno) : "mapped");
    out("existing contents intact: %c", p[2 * pg]);
    munmap(p, 4 * pg);
    r = mmap(p + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    out("NOREPLACE on free range: %s", r == MAP_FAILED ? errname(errno) : (r == p + pg ? "at address" : "elsewhere"));
    /* A hint without MAP_FIXED on a free range is honoured on Linux. */
    munmap(r, pg);
    r = mmap(p + pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("hint on free range: %s", r == p + pg ? "at address" : "elsewhere");
    /* A hint over an existing mapping is not an error: it goes elsewhere. */
    void *h = mmap(p + pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("hint over existing: %s", h == MAP_FAILED ? errname(errno) : (h == p + pg ? "at address" : "elsewhere"));
    return 0;
}
