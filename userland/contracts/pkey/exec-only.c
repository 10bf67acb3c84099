/* Execute-only memory: mprotect or mmap with PROT_EXEC alone gives the
 * pages a key of their own (the lowest free one, taken once per address
 * space), closed to reads in the caller's PKRU, so a read is SIGSEGV
 * SEGV_PKUERR with that key. pkey_alloc skips it, pkey_free and
 * pkey_mprotect refuse it (EINVAL); mprotect to other rights gives the
 * area key 0 again. */
#include "pkeys.h"
#include <sys/mman.h>

static void try_read(const char *label, volatile char *p)
{
    char v;
    if (!faults(p, 0, &v))
        out("%s: ok value=%d", label, v);
    else
        out("%s: %s pkey=%u", label, pkey_fault_code_name(), pkey_fault_pkey);
}

int main(void)
{
    require_ospke();
    catch_faults();
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 3;
    wrpkru(0);
    out("bits of key 1 before: %u", key_bits(rdpkru(), 1));
    check("mprotect PROT_EXEC", mprotect(p, pg, PROT_EXEC));
    out("bits of key 1 after: %u", key_bits(rdpkru(), 1));
    try_read("read execute-only page", p);
    show("alloc", sys_pkey_alloc(0, 0));
    show("free 1", sys_pkey_free(1));
    show("pkey_mprotect with key 1", sys_pkey_mprotect(p + pg, pg, PROT_READ, 1));
    wrpkru(0);
    check("mprotect PROT_EXEC again", mprotect(p + pg, pg, PROT_EXEC));
    out("bits of key 1 after again: %u", key_bits(rdpkru(), 1));
    check("mprotect PROT_READ", mprotect(p, pg, PROT_READ));
    try_read("read after PROT_READ", p);
    try_read("read second execute-only page", p + pg);
    char *q = mmap(NULL, pg, PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("mmap PROT_EXEC: %s", yesno(q != MAP_FAILED));
    try_read("read mmap'd execute-only page", q);
    check("mprotect PROT_READ|PROT_EXEC", mprotect(q, pg, PROT_READ | PROT_EXEC));
    try_read("read it after PROT_READ|PROT_EXEC", q);
    return 0;
}
