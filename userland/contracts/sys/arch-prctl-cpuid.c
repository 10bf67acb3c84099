/* arch_prctl's CPUID control: ARCH_GET_CPUID says CPUID runs (1), and
 * ARCH_SET_CPUID is ENODEV where the CPU offers no CPUID faulting (QEMU's
 * TCG CPU here); an unknown code is EINVAL. */
#include "common.h"

int main(void)
{
    errno = 0;
    long r = syscall(SYS_arch_prctl, 0x1011, 0);
    out("ARCH_GET_CPUID: %ld %s", r, r < 0 ? errname(errno) : "");
    r = syscall(SYS_arch_prctl, 0x1012, 0);
    out("ARCH_SET_CPUID 0: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_arch_prctl, 0x1012, 1);
    out("ARCH_SET_CPUID 1: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_arch_prctl, 0x1fff, 0);
    out("unknown code: %s", r < 0 ? errname(errno) : "ok");
    return 0;
}
