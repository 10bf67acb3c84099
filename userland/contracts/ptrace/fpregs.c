/* GETFPREGS and GETREGSET(NT_PRFPREG) read the tracee's x87/SSE state:
 * an XMM register it loaded is there; SETFPREGS changes it, and the
 * tracee sees the new value. An unknown register set is EINVAL. */
#include "ptrace.h"
#include <sys/uio.h>
#include <elf.h>

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        uint64_t in[2] = {0x1111222233334444ULL, 0x5555666677778888ULL}, out[2];
        __asm__ volatile("movdqu %0, %%xmm7" : : "m"(in) : "xmm7");
        traceme_and_stop();
        __asm__ volatile("movdqu %%xmm7, %0" : "=m"(out) : : "xmm7");
        _exit(out[0] == 0xabcdefULL && out[1] == 0x5555666677778888ULL ? 0 : 1);
    }
    pwait("stop", pid);
    struct user_fpregs_struct fp;
    memset(&fp, 0, sizeof fp);
    pt("GETFPREGS", ptrace(PTRACE_GETFPREGS, pid, 0, &fp));
    uint64_t *xmm7 = (uint64_t *)&fp.xmm_space[7 * 4];
    out("xmm7: %llx %llx", (unsigned long long)xmm7[0], (unsigned long long)xmm7[1]);
    out("fcw: %#x mxcsr: %#x", fp.cwd, fp.mxcsr & 0xffff);
    struct user_fpregs_struct fp2;
    memset(&fp2, 0, sizeof fp2);
    struct iovec iov = {&fp2, sizeof fp2};
    pt("GETREGSET NT_PRFPREG", ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRFPREG, &iov));
    out("length: %zu same as GETFPREGS: %s", iov.iov_len, yesno(memcmp(&fp, &fp2, sizeof fp) == 0));
    struct user_regs_struct regs;
    iov.iov_base = &regs;
    iov.iov_len = sizeof regs;
    pt("GETREGSET NT_PRSTATUS", ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov));
    out("length: %zu", iov.iov_len);
    iov.iov_len = 8 * 3;
    pt("GETREGSET NT_PRSTATUS short", ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov));
    out("length: %zu", iov.iov_len);
    pt("GETREGSET unknown", ptrace(PTRACE_GETREGSET, pid, (void *)0x7777, &iov));
    xmm7[0] = 0xabcdef;
    pt("SETFPREGS", ptrace(PTRACE_SETFPREGS, pid, 0, &fp));
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
