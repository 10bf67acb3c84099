/* Anonymous private mappings: zero-filled, writable, page-rounded, and the
 * argument checks of mmap/munmap. */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    out("page size: %ld", pg);
    size_t len = 5 * pg + 123;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("mmap ok: %s", yesno(p != MAP_FAILED));
    out("page aligned: %s", yesno(((uintptr_t)p % pg) == 0));
    int zero = 1;
    for (size_t i = 0; i < 6 * (size_t)pg; i++)
        if (p[i])
            zero = 0;
    out("zero filled incl. rounded tail: %s", yesno(zero));
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)(i * 7);
    unsigned sum = 0;
    for (size_t i = 0; i < len; i++)
        sum += p[i];
    out("checksum: %u", sum);
    check("munmap", munmap(p, len));

    errno = 0;
    void *q = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("length 0: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap((void *)(0x10000000 + 1), pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    out("MAP_FIXED unaligned: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, pg, PROT_READ, MAP_ANONYMOUS, -1, 0);
    out("neither SHARED nor PRIVATE: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 1);
    out("unaligned offset: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    check("munmap unaligned", munmap((char *)p + 1, pg));
    check("munmap length 0", munmap(p, 0));
    check("munmap unmapped range", munmap(p, pg));

    /* A big mapping is lazily backed: touching a few pages is fine. */
    size_t big = 256UL << 20;
    char *b = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    out("256 MiB mapping: %s", b == MAP_FAILED ? errname(errno) : "ok");
    if (b != MAP_FAILED) {
        b[0] = 1;
        b[big / 2] = 2;
        b[big - 1] = 3;
        out("touched: %d %d %d", b[0], b[big / 2], b[big - 1]);
        munmap(b, big);
    }
    return 0;
}
