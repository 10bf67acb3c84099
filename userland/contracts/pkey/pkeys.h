/* Protection keys for the pkey tests: the raw system calls (musl has no
 * wrappers), RDPKRU/WRPKRU, whether the kernel turned keys on (CPUID's
 * OSPKE), and si_pkey read from the siginfo bytes (musl's siginfo_t does
 * not name it: it sits after si_addr and an 8-byte slot, at offset 32). */
#ifndef CONTRACTS_PKEYS_H
#define CONTRACTS_PKEYS_H
#include "common.h"
#include <cpuid.h>

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
#endif
