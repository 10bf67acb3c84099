/* brk: the break starts page-aligned-or-not but queryable with brk(0);
 * growing gives zeroed writable memory, shrinking releases it, and a
 * request below the start is refused (brk returns the old break). */
#include "fault.h"

static unsigned long sbrk_raw(unsigned long addr) { return (unsigned long)syscall(SYS_brk, addr); }

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned long start = sbrk_raw(0);
    out("brk(0) nonzero: %s", yesno(start != 0));
    out("brk(0) again same: %s", yesno(sbrk_raw(0) == start));
    unsigned long want = start + 64 * 1024;
    unsigned long got = sbrk_raw(want);
    out("grow by 64 KiB: %s", yesno(got == want));
    char *p = (char *)start;
    int zero = 1;
    for (unsigned long i = 0; i < 64 * 1024; i++)
        if (p[i])
            zero = 0;
    out("new memory zeroed: %s", yesno(zero));
    memset(p, 0x5a, 64 * 1024);
    out("write/read back: %d", p[65535]);
    got = sbrk_raw(start + pg);
    out("shrink to one page: %s", yesno(got == start + pg));
    /* start may be unaligned: the page after the one holding start+pg-1 is gone. */
    unsigned long first_gone = (start + pg + pg - 1) & ~(unsigned long)(pg - 1);
    out("access past shrunk break: %.19s", try_read((char *)first_gone + pg));
    got = sbrk_raw(start - 16 * pg);
    out("below the start refused (returns current): %s", yesno(got == start + pg));
    got = sbrk_raw(start + 32 * pg);
    int z2 = 1;
    for (long i = pg; i < 32 * pg; i++)
        if (p[i])
            z2 = 0;
    out("regrown memory zeroed again: %s", yesno(got == start + 32 * pg && z2));
    got = sbrk_raw(start + (1UL << 46));
    out("absurd growth refused: %s", yesno(got == start + 32 * pg));
    return 0;
}
