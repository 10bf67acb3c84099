/* readv of a pipe takes what is there in one go, whatever the vectors
 * add up to: with more than 64 KiB of vectors it returns the 1000 bytes
 * waiting (no wait on a second vector), and it fills a 1 MiB pipe's
 * data across 20 vectors of 64 KiB. A vector Linux cannot copy to (an
 * unmapped page) leaves the bytes it would have taken in the pipe: a
 * bad first vector, and a bad second one after a good one, are EFAULT
 * with everything still there for the next read; read(2) into a bad
 * buffer likewise. */
#include "common.h"
#include <sys/mman.h>
#include <sys/uio.h>

#define MiB (1024 * 1024)

static void fill(int fd, size_t n, char c)
{
    static char buf[65536];
    memset(buf, c, sizeof buf);
    while (n > 0) {
        size_t step = n < sizeof buf ? n : sizeof buf;
        ssize_t w = write(fd, buf, step);
        if (w <= 0) {
            out("write: %s", errname(errno));
            return;
        }
        n -= w;
    }
}

/* What a plain read then finds (at most 64 KiB, without waiting). */
static void left(const char *label, int fd)
{
    static char buf[65536];
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t n = read(fd, buf, sizeof buf);
    fcntl(fd, F_SETFL, fl);
    out("%s: %zd %s", label, n, n < 0 ? errname(errno) : "bytes left");
}

int main(void)
{
    int p[2];
    if (pipe(p) < 0)
        return 1;
    static char a[1000], b[80000];
    fill(p[1], 1000, 'x');
    struct iovec two[2] = {{a, sizeof a}, {b, sizeof b}};
    ssize_t n = readv(p[0], two, 2);
    out("1000 bytes, vectors of 1000 and 80000: %zd", n);
    fill(p[1], 1000, 'y');
    struct iovec half[2] = {{a, 500}, {b, sizeof b}};
    n = readv(p[0], half, 2);
    out("1000 bytes, vectors of 500 and 80000: %zd, second starts with y %s", n, yesno(b[0] == 'y' && b[499] == 'y'));

    out("F_SETPIPE_SZ 1 MiB: %s", fcntl(p[1], F_SETPIPE_SZ, MiB) == MiB ? "ok" : errname(errno));
    fill(p[1], MiB, 'z');
    char *big = malloc(20 * 65536);
    struct iovec many[20];
    for (int i = 0; i < 20; i++)
        many[i] = (struct iovec){big + i * 65536, 65536};
    n = readv(p[0], many, 20);
    out("1 MiB waiting, 20 vectors of 64 KiB: %zd", n);
    left("then", p[0]);

    char *bad = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(bad, 4096);
    fill(p[1], 20, 'w');
    struct iovec bad_first[2] = {{bad, 10}, {a, 10}};
    n = readv(p[0], bad_first, 2);
    out("bad first vector: %zd %s", n, n < 0 ? errname(errno) : "");
    struct iovec bad_second[2] = {{a, 10}, {bad, 10}};
    n = readv(p[0], bad_second, 2);
    out("bad second vector: %zd %s", n, n < 0 ? errname(errno) : "");
    n = read(p[0], bad, 20);
    out("read into a bad buffer: %zd %s", n, n < 0 ? errname(errno) : "");
    left("after them", p[0]);

    /* The same past 64 KiB of vectors. */
    fill(p[1], 20, 'v');
    struct iovec bad_big[2] = {{b, sizeof b}, {bad, 10}};
    n = readv(p[0], bad_big, 2);
    out("20 bytes, vectors of 80000 and a bad one: %zd", n);
    fill(p[1], 20, 'u');
    struct iovec big_bad[2] = {{bad, 10}, {b, sizeof b}};
    n = readv(p[0], big_bad, 2);
    out("bad vector then 80000: %zd %s", n, n < 0 ? errname(errno) : "");
    left("after it", p[0]);
    return 0;
}
