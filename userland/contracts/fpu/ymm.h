/* Helpers for the fpu area: the 16 ymm registers as memory, a system call
 * made with all of them live, and the CPUID/XGETBV facts the tests compare
 * against. Inline assembly only, so the programs need no -mavx. */
#ifndef CONTRACTS_FPU_YMM_H
#define CONTRACTS_FPU_YMM_H

#include "common.h"
#include <cpuid.h>

/* ymm0..ymm15, 32 bytes each. */
typedef struct { uint64_t q[4]; } ymm_t;
typedef struct { ymm_t r[16]; } __attribute__((aligned(32))) ymm_set;

/* Loads ymm0..15 from *in, makes system call nr(a1, a2, 0) `repeat` times
 times, stores ymm0..15 to *out and returns the last result. The kernel sees every ymm
 * register live, upper halves included. */
long ymm_syscall(const ymm_set *in, ymm_set *out, long nr, long a1, long a2, long repeat);
__asm__(
    ".text\n.globl ymm_syscall\n.type ymm_syscall,@function\nymm_syscall:\n"
    "push %rbx\npush %r12\npush %r13\npush %r14\npush %r15\n"
    "mov %rdi,%r12\nmov %rsi,%r13\nmov %rdx,%r14\nmov %rcx,%r15\nmov %r8,%rbx\n"
    "vmovdqu 0(%r12),%ymm0\nvmovdqu 32(%r12),%ymm1\nvmovdqu 64(%r12),%ymm2\nvmovdqu 96(%r12),%ymm3\n"
    "vmovdqu 128(%r12),%ymm4\nvmovdqu 160(%r12),%ymm5\nvmovdqu 192(%r12),%ymm6\nvmovdqu 224(%r12),%ymm7\n"
    "vmovdqu 256(%r12),%ymm8\nvmovdqu 288(%r12),%ymm9\nvmovdqu 320(%r12),%ymm10\nvmovdqu 352(%r12),%ymm11\n"
    "vmovdqu 384(%r12),%ymm12\nvmovdqu 416(%r12),%ymm13\nvmovdqu 448(%r12),%ymm14\nvmovdqu 480(%r12),%ymm15\n"
    "1:\nmov %r14,%rax\nmov %r15,%rdi\nmov %rbx,%rsi\nxor %edx,%edx\nsyscall\n"
    "dec %r9\njnz 1b\n"
    "vmovdqu %ymm0,0(%r13)\nvmovdqu %ymm1,32(%r13)\nvmovdqu %ymm2,64(%r13)\nvmovdqu %ymm3,96(%r13)\n"
    "vmovdqu %ymm4,128(%r13)\nvmovdqu %ymm5,160(%r13)\nvmovdqu %ymm6,192(%r13)\nvmovdqu %ymm7,224(%r13)\n"
    "vmovdqu %ymm8,256(%r13)\nvmovdqu %ymm9,288(%r13)\nvmovdqu %ymm10,320(%r13)\nvmovdqu %ymm11,352(%r13)\n"
    "vmovdqu %ymm12,384(%r13)\nvmovdqu %ymm13,416(%r13)\nvmovdqu %ymm14,448(%r13)\nvmovdqu %ymm15,480(%r13)\n"
    "vzeroupper\n"
    "pop %r15\npop %r14\npop %r13\npop %r12\npop %rbx\nret\n"
    ".size ymm_syscall,.-ymm_syscall\n");

/* Stores the live ymm0..15 (nothing before it may touch them). */
static inline __attribute__((always_inline, unused)) void ymm_store(ymm_set *out)
{
    __asm__ volatile(
        "vmovdqu %%ymm0,0(%0)\nvmovdqu %%ymm1,32(%0)\nvmovdqu %%ymm2,64(%0)\nvmovdqu %%ymm3,96(%0)\n"
        "vmovdqu %%ymm4,128(%0)\nvmovdqu %%ymm5,160(%0)\nvmovdqu %%ymm6,192(%0)\nvmovdqu %%ymm7,224(%0)\n"
        "vmovdqu %%ymm8,256(%0)\nvmovdqu %%ymm9,288(%0)\nvmovdqu %%ymm10,320(%0)\nvmovdqu %%ymm11,352(%0)\n"
        "vmovdqu %%ymm12,384(%0)\nvmovdqu %%ymm13,416(%0)\nvmovdqu %%ymm14,448(%0)\nvmovdqu %%ymm15,480(%0)\n"
        :: "r"(out) : "memory");
}

/* Sets every ymm register to all ones (a handler scribbling on them). */
static inline __attribute__((always_inline, unused)) void ymm_clobber(void)
{
    __asm__ volatile(
        "vpcmpeqd %%ymm0,%%ymm0,%%ymm0\nvmovdqa %%ymm0,%%ymm1\nvmovdqa %%ymm0,%%ymm2\nvmovdqa %%ymm0,%%ymm3\n"
        "vmovdqa %%ymm0,%%ymm4\nvmovdqa %%ymm0,%%ymm5\nvmovdqa %%ymm0,%%ymm6\nvmovdqa %%ymm0,%%ymm7\n"
        "vmovdqa %%ymm0,%%ymm8\nvmovdqa %%ymm0,%%ymm9\nvmovdqa %%ymm0,%%ymm10\nvmovdqa %%ymm0,%%ymm11\n"
        "vmovdqa %%ymm0,%%ymm12\nvmovdqa %%ymm0,%%ymm13\nvmovdqa %%ymm0,%%ymm14\nvmovdqa %%ymm0,%%ymm15\n"
        ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

/* A pattern distinct in every lane of every register, different per seed. */
static void __attribute__((unused)) ymm_pattern(ymm_set *s, uint64_t seed)
{
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 4; j++)
            s->r[i].q[j] = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)(i * 4 + j + 1) * 0x0101010101010101ULL;
}

static int __attribute__((unused)) ymm_equal(const ymm_set *a, const ymm_set *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* CPUID.1:ECX OSXSAVE and AVX, CPUID.7:EBX AVX2. */
static int __attribute__((unused)) cpu_has_avx2(void)
{
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (!(c & (1u << 27)) || !(c & (1u << 28)))
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 5) & 1;
}

static uint64_t __attribute__((unused)) xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* The XSAVE area size for the features enabled in XCR0, and where the
 * AVX upper halves sit in the standard format. */
static unsigned __attribute__((unused)) cpuid_xsave_size(void)
{
    unsigned a, b, c, d;
    __cpuid_count(0xd, 0, a, b, c, d);
    return b;
}

static unsigned __attribute__((unused)) cpuid_avx_offset(void)
{
    unsigned a, b, c, d;
    __cpuid_count(0xd, 2, a, b, c, d);
    return b;
}

#endif
