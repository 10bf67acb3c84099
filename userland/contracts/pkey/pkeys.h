/* Protection keys for the pkey tests: the raw system calls (musl has no
 * wrappers), RDPKRU/WRPKRU, whether the kernel turned keys on (CPUID's
 * OSPKE), and si_pkey read from the siginfo bytes (musl's siginfo_t does
 * not name it: it sits after si_addr and an 8-byte slot, at offset 32). */
#ifndef CONTRACTS_PKEYS_H
#define CONTRACTS_PKEYS_H
#include "common.h"
#include <cpuid.h>
#include <setjmp.h>

#ifndef PKEY_DISABLE_ACCESS
#define PKEY_DISABLE_ACCESS 1
#define PKEY_DISABLE_WRITE 2
#endif
#ifndef SEGV_PKUERR
#define SEGV_PKUERR 4
#endif

static long sys_pkey_alloc(unsigned long flags, unsigned long rights)
{
    return syscall(SYS_pkey_alloc, flags, rights);
}

static long sys_pkey_free(long key) __attribute__((unused));
static long sys_pkey_free(long key) { return syscall(SYS_pkey_free, key); }

static long sys_pkey_mprotect(void *addr, size_t len, long prot, long key) __attribute__((unused));
static long sys_pkey_mprotect(void *addr, size_t len, long prot, long key)
{
    return syscall(SYS_pkey_mprotect, addr, len, prot, key);
}

/* CPUID.(7,0):ECX bit 4: the OS set CR4.PKE, so RDPKRU/WRPKRU work. */
static int ospke(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (c >> 4) & 1;
}

static unsigned rdpkru(void) __attribute__((unused));
static unsigned rdpkru(void)
{
    unsigned eax, edx;
    __asm__ volatile(".byte 0x0f,0x01,0xee" : "=a"(eax), "=d"(edx) : "c"(0));
    return eax;
}

static void wrpkru(unsigned v) __attribute__((unused));
static void wrpkru(unsigned v)
{
    __asm__ volatile(".byte 0x0f,0x01,0xef" : : "a"(v), "c"(0), "d"(0) : "memory");
}

/* The two PKRU bits of `key`: 1 access disabled, 2 write disabled. */
static unsigned key_bits(unsigned pkru, int key) __attribute__((unused));
static unsigned key_bits(unsigned pkru, int key) { return (pkru >> (2 * key)) & 3; }

static unsigned si_pkey_of(const siginfo_t *si) __attribute__((unused));
static unsigned si_pkey_of(const siginfo_t *si)
{
    unsigned v;
    memcpy(&v, (const char *)si + 32, sizeof v);
    return v;
}
/* Programs that need keys say so and stop where the CPU or kernel has none. */
static void require_ospke(void) __attribute__((unused));
static void require_ospke(void)
{
    if (!ospke()) {
        out("ospke: no");
        exit(0);
    }
}

static void on_signal(int sig, void (*handler)(int, siginfo_t *, void *), int flags) __attribute__((unused));
static void on_signal(int sig, void (*handler)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | flags;
    sigaction(sig, &sa, NULL);
}

/* A caught SIGSEGV: what its siginfo said, and the PKRU the handler ran
 * with (the default one, which its siglongjmp keeps). */
static sigjmp_buf pkey_fault_jb;
static volatile int pkey_fault_sig, pkey_fault_code;
static volatile unsigned pkey_fault_pkey, pkey_fault_handler_pkru, pkey_fault_after_pkru;
static void *volatile pkey_fault_addr;

static void pkey_fault_handler(int s, siginfo_t *si, void *uc)
{
    (void)uc;
    pkey_fault_sig = s;
    pkey_fault_code = si->si_code;
    pkey_fault_addr = si->si_addr;
    pkey_fault_pkey = si_pkey_of(si);
    pkey_fault_handler_pkru = rdpkru();
    siglongjmp(pkey_fault_jb, 1);
}

static void catch_faults(void) __attribute__((unused));
static void catch_faults(void) { on_signal(SIGSEGV, pkey_fault_handler, SA_NODEFER); }

/* Reads *p into *v, or writes *v to *p (catch_faults() first); returns 1
 * if that faulted, with the PKRU the access started with put back (the
 * one after the jump kept in pkey_fault_after_pkru). */
static int faults(volatile char *p, int write, char *v) __attribute__((unused));
static int faults(volatile char *p, int write, char *v)
{
    unsigned saved = rdpkru();
    if (sigsetjmp(pkey_fault_jb, 1) == 0) {
        if (write)
            *p = *v;
        else
            *v = *p;
        return 0;
    }
    pkey_fault_after_pkru = rdpkru();
    wrpkru(saved);
    return 1;
}

static const char *pkey_fault_code_name(void) __attribute__((unused));
static const char *pkey_fault_code_name(void)
{
    return pkey_fault_code == SEGV_PKUERR ? "SEGV_PKUERR" : pkey_fault_code == SEGV_ACCERR ? "SEGV_ACCERR" : "other";
}
#endif
