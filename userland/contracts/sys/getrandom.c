/* getrandom: returns the requested length for small requests, accepts
 * GRND_NONBLOCK/GRND_RANDOM/GRND_INSECURE, rejects unknown flags, and two
 * draws differ. */
#include "common.h"

static long gr(void *buf, size_t n, unsigned flags) { return syscall(SYS_getrandom, buf, n, flags); }

int main(void)
{
    unsigned char a[256], b[256];
    show("getrandom 0 bytes", gr(a, 0, 0));
    show("getrandom 1 byte", gr(a, 1, 0));
    show("getrandom 16 bytes", gr(a, 16, 0));
    show("getrandom 256 bytes", gr(a, 256, 0));
    gr(b, 256, 0);
    out("two draws differ: %s", yesno(memcmp(a, b, 256) != 0));
    int allzero = 1;
    for (int i = 0; i < 256; i++)
        if (a[i])
            allzero = 0;
    out("not all zero: %s", yesno(!allzero));
    show("GRND_NONBLOCK 32", gr(a, 32, GRND_NONBLOCK));
    show("GRND_RANDOM 32", gr(a, 32, GRND_RANDOM));
    show("GRND_INSECURE 32", gr(a, 32, GRND_INSECURE));
    show("GRND_RANDOM|GRND_INSECURE", gr(a, 32, GRND_RANDOM | GRND_INSECURE));
    show("unknown flag", gr(a, 32, 0x80));
    show("NULL buffer", gr(NULL, 32, 0));
    char *big = malloc(1 << 20);
    long n = gr(big, 1 << 20, 0);
    out("1 MiB request returns a positive count: %s", yesno(n > 0));
    int fd = open("/dev/urandom", O_RDONLY);
    out("/dev/urandom read 64: %ld", (long)read(fd, a, 64));
    return 0;
}
