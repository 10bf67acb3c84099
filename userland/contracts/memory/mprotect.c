/* mprotect changes access: writes to a read-only page raise SIGSEGV with
 * SEGV_ACCERR, PROT_NONE blocks reads, restoring write access works. */
#include "fault.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 1;
    p[pg] = 2;
    p[2 * pg] = 3;
    check("mprotect middle page PROT_READ", mprotect(p + pg, pg, PROT_READ));
    out("read middle: %s", try_read(p + pg));
    out("write middle: %s", try_write(p + pg, 9));
    out("write first: %s", try_write(p, 4));
    out("write last: %s", try_write(p + 2 * pg, 5));
    check("mprotect PROT_NONE", mprotect(p + pg, pg, PROT_NONE));
    out("read PROT_NONE: %s", try_read(p + pg));
    check("mprotect back to RW", mprotect(p + pg, pg, PROT_READ | PROT_WRITE));
    out("write middle again: %s", try_write(p + pg, 7));
    out("value kept through protections: %d", p[pg]);
    errno = 0;
    /* raw: musl rounds the address down itself */
    check("mprotect unaligned", syscall(SYS_mprotect, p + 1, pg, PROT_READ));
    check("mprotect bad prot bits", mprotect(p, pg, 0x100));
    munmap(p + 2 * pg, pg);
    check("mprotect over an unmapped page", mprotect(p + pg, 2 * pg, PROT_READ));
    /* Read-only mapping from the start. */
    char *r = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("write PROT_READ mapping: %s", try_write(r, 1));
    /* Executable code stays readable. */
    out("read own code: %s", strncmp(try_read((char *)main), "ok", 2) == 0 ? "ok" : "fault");
    out("write own code: %s", try_write((char *)main, 0));
    return 0;
}
