/* memfd_secret: Linux 6.1 has it only when booted with secretmem.enable=1
 * (Debian's default is off): ENOSYS, whatever the flags. */
#include "common.h"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

int main(void)
{
    check("flags 0", syscall(SYS_memfd_secret, 0));
    check("O_CLOEXEC", syscall(SYS_memfd_secret, O_CLOEXEC));
    check("bad flags", syscall(SYS_memfd_secret, 0x1234));
    return 0;
}
