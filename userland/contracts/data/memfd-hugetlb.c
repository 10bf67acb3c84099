/* memfd_create with MFD_HUGETLB: the huge page size encodings Linux
 * refuses (EINVAL for bits outside the size field) and what it does with
 * an unsupported size (ENODEV). The default size is not tested: Linux
 * makes a hugetlbfs file, which Kevlar does not have (it answers ENODEV,
 * as Linux does on a machine without huge pages). */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long r = syscall(SYS_memfd_create, "h", MFD_HUGETLB | 0x100);
    out("MFD_HUGETLB with flag 0x100: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_memfd_create, "h", MFD_HUGETLB | (63u << 26));
    out("MFD_HUGETLB size 2^63: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_memfd_create, "h", MFD_HUGETLB | (12u << 26));
    out("MFD_HUGETLB size 4 KiB: %s", r < 0 ? errname(errno) : "ok");
    return 0;
}
