/* munmap of the middle of a mapping leaves a hole: both sides still work,
 * the hole faults with SEGV_MAPERR, and it can be mapped again. */
#include "fault.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 5 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 5; i++)
        p[i * pg] = 'A' + i;
    check("munmap pages 1-2", munmap(p + pg, 2 * pg));
    out("page 0: %s", try_read(p));
    out("page 1: %s", try_read(p + pg));
    out("page 2: %s", try_read(p + 2 * pg + 100));
    out("page 3: %s", try_read(p + 3 * pg));
    out("page 4: %s", try_read(p + 4 * pg));
    check("munmap the hole again", munmap(p + pg, 2 * pg));
    check("munmap across hole and page 3", munmap(p + 2 * pg, 2 * pg));
    out("page 3 after: %s", try_read(p + 3 * pg));
    char *q = mmap(p + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    out("remap into hole: %s", yesno(q == p + pg));
    out("page 1 again: %s", try_read(p + pg));
    out("page 4 still: %s", try_read(p + 4 * pg));
    return 0;
}
