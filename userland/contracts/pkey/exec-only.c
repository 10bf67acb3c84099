/* Execute-only memory: mprotect or mmap with PROT_EXEC alone gives the
 * pages a key of their own (the lowest free one, taken once per address
 * space), closed to reads in the caller's PKRU, so a read is SIGSEGV
 * SEGV_PKUERR with that key. pkey_alloc skips it, pkey_free and
 * pkey_mprotect refuse it (EINVAL); mprotect to other rights gives the
 * area key 0 again. */
#include "pkeys.h"
#include <setjmp.h>
#include <sys/mman.h>

static sigjmp_buf jb;
static volatile int got_code;
static volatile unsigned got_pkey;

static void on_fault(int s, siginfo_t *si, void *uc)
{
    (void)s;
    (void)uc;
    got_code = si->si_code;
    got_pkey = si_pkey_of(si);
    siglongjmp(jb, 1);
}

static void try_read(const char *label, volatile char *p)
{
    unsigned saved = rdpkru();
    if (sigsetjmp(jb, 1) == 0) {
        out("%s: ok value=%d", label, *p);
        return;
    }
    wrpkru(saved);
    out("%s: %s pkey=%u", label, got_code == SEGV_PKUERR ? "SEGV_PKUERR" : got_code == SEGV_ACCERR ? "SEGV_ACCERR" : "other", got_pkey);
}

int main(void)
{
    if (!ospke()) {
        out("ospke: no");
        return 0;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
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
