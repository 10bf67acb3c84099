/* PTRACE_GETREGSET/SETREGSET with NT_X86_XSTATE: the standard-format
 * XSAVE image, as large as the enabled components need (CPUID 0xD), its
 * software bytes (XCR0, then zeros) and header; a register set by
 * the tracer is what the tracee finds. Lengths: not a multiple of 8 is
 * EINVAL, a partial set EFAULT; an XSTATE_BV naming a disabled component
 * is EINVAL. */
#include "ptrace.h"
#include <cpuid.h>
#include <sys/uio.h>
#include <elf.h>

static unsigned long xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (unsigned long)hi << 32 | lo;
}

static unsigned char buf[1 << 16];

static long regset(int req, pid_t pid, int note, void *base, size_t len, size_t *out_len)
{
    struct iovec iov = { base, len };
    long r = ptrace(req, pid, (void *)(long)note, &iov);
    if (out_len)
        *out_len = iov.iov_len;
    return r;
}

#define U32(p) (*(unsigned *)(p))
#define U64(p) (*(unsigned long *)(p))

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
            _exit(100);
        unsigned long in = 0x1122334455667788UL, back;
        __asm__ volatile("movq %1, %%xmm0\n\tint3\n\tmovq %%xmm0, %0" : "=r"(back) : "r"(in) : "xmm0");
        _exit(back == 0x99aabbccddeeff00UL ? 0 : 1);
    }
    pwait("int3", pid);
    unsigned a, b, c, d;
    __cpuid_count(0xd, 0, a, b, c, d);
    out("xcr0: %#lx", xcr0());
    size_t len = 0;
    pt("GETREGSET", regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, buf, sizeof buf, &len));
    out("iov_len is CPUID 0xd ebx: %s", yesno(len == b));
    int sw_rest = 0;
    for (int i = 472; i < 512; i++)
        sw_rest |= buf[i];
    out("software bytes: XCR0 first: %s, then zero: %s", yesno(U64(buf + 464) == xcr0()), yesno(!sw_rest));
    int pad = 0;
    for (int i = 416; i < 464; i++)
        pad |= buf[i];
    out("padding zero: %s", yesno(!pad));
    unsigned long bv = U64(buf + 512);
    out("xstate_bv within xcr0: %s, has SSE: %s", yesno((bv & ~xcr0()) == 0), yesno(bv & 2));
    int rest = 0;
    for (int i = 520; i < 576; i++)
        rest |= buf[i];
    out("xcomp_bv and reserved header bytes zero: %s", yesno(!rest));
    out("xmm0: %#lx", U64(buf + 160));
    out("mxcsr: %#x", U32(buf + 24));
    pt("GETREGSET len 12", regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, buf, 12, NULL));
    pt("GETREGSET len 520", regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, buf, 520, &len));
    out("  iov_len: %zu", len);
    pt("GETREGSET note 0x999", regset(PTRACE_GETREGSET, pid, 0x999, buf, 512, NULL));
    pt("GETREGSET NT_PRFPREG len 100", regset(PTRACE_GETREGSET, pid, NT_PRFPREG, buf, 100, NULL));
    pt("GETREGSET bad iovec", ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, (void *)8));
    pt("GETREGSET bad base", regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, (void *)8, 512, NULL));
    pt("GETREGSET", regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, buf, sizeof buf, &len));
    size_t size = len;
    pt("SETREGSET partial", regset(PTRACE_SETREGSET, pid, NT_X86_XSTATE, buf, size - 8, NULL));
    unsigned long saved_bv = U64(buf + 512);
    U64(buf + 512) = saved_bv | 1UL << 62;
    pt("SETREGSET xstate_bv bit 62", regset(PTRACE_SETREGSET, pid, NT_X86_XSTATE, buf, size, NULL));
    U64(buf + 512) = saved_bv;
    U64(buf + 520) = 1;
    pt("SETREGSET xcomp_bv 1", regset(PTRACE_SETREGSET, pid, NT_X86_XSTATE, buf, size, NULL));
    U64(buf + 520) = 0;
    U64(buf + 160) = 0x99aabbccddeeff00UL;
    pt("SETREGSET", regset(PTRACE_SETREGSET, pid, NT_X86_XSTATE, buf, size, &len));
    out("  iov_len unchanged: %s", yesno(len == size));
    memset(buf, 0, 1024);
    pt("GETREGSET", regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, buf, sizeof buf, NULL));
    out("xmm0: %#lx", U64(buf + 160));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
