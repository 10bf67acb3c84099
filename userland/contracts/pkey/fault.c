/* Accesses a protection key refuses: SIGSEGV with si_code SEGV_PKUERR,
 * si_addr the address and si_pkey the page's key, for a write under
 * PKEY_DISABLE_WRITE (reads still work), a read under PKEY_DISABLE_ACCESS
 * on a page never touched (nothing mapped yet), and a write to a
 * read-only area whose key refuses writes (the key is reported, not
 * SEGV_ACCERR). The kernel's own copies obey the caller's PKRU (EFAULT).
 * mprotect keeps an area's key; pkey_mprotect with -1 too. The handler
 * runs with the default PKRU (every key but 0 closed), which a siglongjmp
 * out of it keeps. /proc/self/smaps shows each area's key. */
#include "pkeys.h"
#include <sys/mman.h>

static void touch(const char *label, volatile char *p, int write)
{
    char v = 7;
    if (!faults(p, write, &v)) {
        out("%s: ok value=%d", label, v);
        return;
    }
    const char *code = pkey_fault_code_name();
    const char *addr = pkey_fault_addr == (void *)p ? "same" : "different";
    if (pkey_fault_code == SEGV_PKUERR)
        out("%s: %s %s addr=%s pkey=%u handler pkru=%#x after=%#x", label, signame(pkey_fault_sig), code, addr,
            pkey_fault_pkey, pkey_fault_handler_pkru, pkey_fault_after_pkru);
    else
        out("%s: %s %s addr=%s", label, signame(pkey_fault_sig), code, addr);
}

static void smaps_key(const char *label, void *addr)
{
    char want[32];
    snprintf(want, sizeof want, "%08lx-", (unsigned long)addr);
    int fd = open("/proc/self/smaps", O_RDONLY);
    static char buf[1 << 16];
    size_t len = 0;
    ssize_t n;
    while (fd >= 0 && len < sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += n;
    buf[len] = 0;
    close(fd);
    char *at = strstr(buf, want);
    char *key = at ? strstr(at, "ProtectionKey:") : NULL;
    if (!key) {
        out("%s: no ProtectionKey line", label);
        return;
    }
    char *end = strchr(key, '\n');
    out("%s: %.*s", label, (int)(end ? end - key : 30), key);
}

int main(void)
{
    require_ospke();
    long pg = sysconf(_SC_PAGESIZE);
    catch_faults();
    char *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 1;
    int fds[2];
    pipe(fds);

    long kw = show("alloc write-disabled", sys_pkey_alloc(0, PKEY_DISABLE_WRITE));
    show("pkey_mprotect page 0", sys_pkey_mprotect(p, pg, PROT_READ | PROT_WRITE, kw));
    touch("read page 0", p, 0);
    touch("write page 0", p, 1);
    show("write(2) from page 0", write(fds[1], p, 1));
    show("read(2) into page 0", read(fds[0], p, 1));
    check("mprotect page 0", mprotect(p, pg, PROT_READ | PROT_WRITE));
    touch("write page 0 after mprotect", p, 1);
    wrpkru(rdpkru() & ~(3u << (2 * kw)));
    touch("write page 0 with the key opened", p, 1);

    long ka = show("alloc access-disabled", sys_pkey_alloc(0, PKEY_DISABLE_ACCESS));
    show("pkey_mprotect page 1", sys_pkey_mprotect(p + pg, pg, PROT_READ | PROT_WRITE, ka));
    touch("read untouched page 1", p + pg + 8, 0);
    touch("write page 1", p + pg + 8, 1);
    show("write(2) from page 1", write(fds[1], p + pg, 1));

    show("pkey_mprotect page 2 read-only", sys_pkey_mprotect(p + 2 * pg, pg, PROT_READ, kw));
    touch("write read-only page 2, key open", p + 2 * pg, 1);
    wrpkru(rdpkru() | (2u << (2 * kw)));
    touch("write read-only page 2, key write-disabled", p + 2 * pg, 1);

    show("pkey_mprotect all -1", sys_pkey_mprotect(p, 3 * pg, PROT_READ | PROT_WRITE, -1));
    smaps_key("smaps page 0", p);
    smaps_key("smaps page 1", p + pg);
    smaps_key("smaps page 2", p + 2 * pg);
    show("pkey_mprotect page 1 key 0", sys_pkey_mprotect(p + pg, pg, PROT_READ | PROT_WRITE, 0));
    smaps_key("smaps page 1 after", p + pg);
    touch("read page 1 with key 0", p + pg + 8, 0);

    /* The checks and their order (Linux's do_mprotect_pkey). */
    show("unallocated key 9", sys_pkey_mprotect(p, pg, PROT_READ, 9));
    show("key 16", sys_pkey_mprotect(p, pg, PROT_READ, 16));
    show("key -2", sys_pkey_mprotect(p, pg, PROT_READ, -2));
    show("zero length, unallocated key", sys_pkey_mprotect(p, 0, PROT_READ, 9));
    show("unaligned, unallocated key", sys_pkey_mprotect(p + 1, pg, PROT_READ, 9));
    show("bad prot, unallocated key", sys_pkey_mprotect(p, pg, 0x40, 9));
    show("bad prot", sys_pkey_mprotect(p, pg, 0x40, kw));
    show("PROT_SEM", sys_pkey_mprotect(p, pg, PROT_READ | PROT_WRITE | 0x8, kw));
    show("wrapping length", sys_pkey_mprotect(p, -pg, PROT_READ, kw));
    munmap(p + 2 * pg, pg);
    show("hole", sys_pkey_mprotect(p, 3 * pg, PROT_READ, kw));
    show("free a key in use by pages", sys_pkey_free(kw));
    show("pkey_mprotect with the freed key", sys_pkey_mprotect(p, pg, PROT_READ, kw));
    return 0;
}
