/* posix_fadvise (fadvise64), readahead and sync_file_range: which files
 * they accept and their argument checks, in Linux's order. */
#include "common.h"
#include <sys/socket.h>

static long fadv(int fd, long off, long len, int advice) { return rawsys(SYS_fadvise64, fd, off, len, advice, 0, 0); }
static long sfr(int fd, long off, long n, unsigned flags) { return rawsys(SYS_sync_file_range, fd, off, n, flags, 0, 0); }

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    write(fd, "hello", 5);
    for (int a = 0; a <= 7; a++) {
        char label[32];
        snprintf(label, sizeof label, "fadvise advice %d", a);
        rcheck(label, fadv(fd, 0, 0, a));
    }
    rcheck("fadvise advice -1", fadv(fd, 0, 0, -1));
    rcheck("fadvise negative length", fadv(fd, 0, -1, 0));
    rcheck("fadvise negative offset", fadv(fd, -4096, 10, 0));
    rcheck("fadvise huge range", fadv(fd, 0x7fffffffffffffffL, 0x7fffffffffffffffL, 3));
    rcheck("fadvise bad fd", fadv(-1, 0, 0, 0));
    rcheck("fadvise closed fd, bad advice", fadv(99, 0, 0, 42));
    int p[2];
    pipe(p);
    rcheck("fadvise pipe", fadv(p[0], 0, 0, 0));
    rcheck("fadvise pipe, bad advice", fadv(p[0], 0, 0, 42));
    mkfifo("fifo", 0644);
    int ff = open("fifo", O_RDWR);
    rcheck("fadvise fifo", fadv(ff, 0, 0, 0));
    int d = open(".", O_RDONLY | O_DIRECTORY);
    rcheck("fadvise directory", fadv(d, 0, 0, 0));
    int nul = open("/dev/null", O_RDWR);
    rcheck("fadvise /dev/null", fadv(nul, 0, 0, 4));
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    rcheck("fadvise socket", fadv(sv[0], 0, 0, 0));
    int wo = open("f", O_WRONLY);
    rcheck("fadvise write-only file", fadv(wo, 0, 0, 3));

    rcheck("readahead", rawsys(SYS_readahead, fd, 0, 4096, 0, 0, 0));
    rcheck("readahead past the end", rawsys(SYS_readahead, fd, 1 << 20, 4096, 0, 0, 0));
    rcheck("readahead count ~0", rawsys(SYS_readahead, fd, 0, -1L, 0, 0, 0));
    rcheck("readahead write-only", rawsys(SYS_readahead, wo, 0, 4096, 0, 0, 0));
    rcheck("readahead pipe", rawsys(SYS_readahead, p[0], 0, 4096, 0, 0, 0));
    rcheck("readahead directory", rawsys(SYS_readahead, d, 0, 4096, 0, 0, 0));
    rcheck("readahead /dev/null", rawsys(SYS_readahead, nul, 0, 4096, 0, 0, 0));
    rcheck("readahead socket", rawsys(SYS_readahead, sv[0], 0, 4096, 0, 0, 0));
    rcheck("readahead bad fd", rawsys(SYS_readahead, -1, 0, 4096, 0, 0, 0));

    rcheck("sync_file_range", sfr(fd, 0, 0, 7));
    rcheck("sync_file_range flags 8", sfr(fd, 0, 0, 8));
    rcheck("sync_file_range negative offset", sfr(fd, -1, 0, 0));
    rcheck("sync_file_range negative count", sfr(fd, 0, -1, 0));
    rcheck("sync_file_range offset+count wraps past 2^63", sfr(fd, 0x7fffffffffffff00L, 0x200, 0));
    rcheck("sync_file_range bad fd, bad flags", sfr(-1, 0, 0, 8));
    rcheck("sync_file_range pipe", sfr(p[0], 0, 0, 0));
    rcheck("sync_file_range pipe, bad flags", sfr(p[0], 0, 0, 8));
    rcheck("sync_file_range directory", sfr(d, 0, 0, 0));
    rcheck("sync_file_range /dev/null", sfr(nul, 0, 0, 0));
    rcheck("sync_file_range socket", sfr(sv[0], 0, 0, 0));
    rcheck("sync_file_range write-only", sfr(wo, 0, 10, 2));
    return 0;
}
