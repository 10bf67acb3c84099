/* SIGSEGV si_code: SEGV_MAPERR for an address with no mapping, SEGV_ACCERR
 * for a mapping without the needed permission; si_addr is the address. A
 * second fault after the handler returns by siglongjmp works the same. */
#include "fault.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + pg, pg);
    out("read unmapped: %s", try_read(p + pg + 8));
    out("write unmapped: %s", try_write(p + pg + 8, 1));
    out("read NULL: %s", try_read((char *)0));
    out("read page 1: %s", try_read((char *)4096));
    mprotect(p, pg, PROT_READ);
    out("write read-only: %s", try_write(p + 16, 1));
    mprotect(p, pg, PROT_NONE);
    out("read PROT_NONE: %s", try_read(p + 16));
    /* Kernel-half and non-canonical addresses: SIGSEGV too (no si_addr check:
     * the CPU reports a general protection fault for non-canonical ones). */
    const char *k = try_read((char *)0xffff800000000000UL);
    out("read kernel address: %.7s", k);
    const char *nc = try_read((char *)0x0000800000000000UL);
    out("read non-canonical address: %.7s", nc);
    /* Without a handler the process dies with SIGSEGV. */
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        *(volatile char *)(p + pg) = 1;
        _exit(0);
    }
    reap("child without handler", pid);
    return 0;
}
