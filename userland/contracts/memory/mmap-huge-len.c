/* mmap with lengths at the top of the address range: no fit wraps around
 * (found by kfuzz: mmap(NULL, 0xfffffffffffff000, ...) panicked the kernel,
 * its free-range search wrapping into a mapping that ended below its
 * start). Linux answers ENOMEM. The raw system call: musl's mmap()
 * refuses lengths of PTRDIFF_MAX and up itself, without asking the kernel. */
#include "common.h"
#include <sys/mman.h>

static void try_len(const char *label, unsigned long len, int flags, int fd)
{
    long r = rawsys(SYS_mmap, 0L, (long)len, (long)PROT_READ, (long)flags, (long)fd, 0L);
    void *p = (void *)r;
    if (r < 0 && r > -4096) {
        out("%s: %s", label, errname(-r));
    } else {
        out("%s: mapped", label);
        munmap(p, len);
    }
}

int main(void)
{
    const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
    try_len("len 2^64-4096", 0xfffffffffffff000UL, anon, -1);
    try_len("len 2^64-8192", 0xffffffffffffe000UL, anon, -1);
    try_len("len 2^64-1", ~0UL, anon, -1);
    try_len("len 2^63", 1UL << 63, anon, -1);
    try_len("len 2^63+4096", (1UL << 63) + 4096, anon, -1);
    try_len("len 2^47", 1UL << 47, anon, -1);
    try_len("len 2^64-4096 shared", 0xfffffffffffff000UL, MAP_SHARED | MAP_ANONYMOUS, -1);
    put_file("f", "data");
    int fd = open("f", O_RDONLY);
    try_len("len 2^64-4096 of a file", 0xfffffffffffff000UL, MAP_PRIVATE, fd);
    close(fd);
    /* After all that, an ordinary mapping still works. */
    try_len("len 4096", 4096, anon, -1);
    return 0;
}
