/* readv/writev edge cases as Linux 6.1's import_iovec and vfs_readv/
 * vfs_writev decide them: the descriptor is checked first (EBADF), then
 * the vector array (more than 1024 vectors or a length negative as a
 * ssize_t: EINVAL, judged over every vector before any address; a base
 * and length outside user space: EFAULT), then the access mode (EBADF),
 * and a call with nothing to move returns 0 without touching the file
 * (a datagram socket sends nothing, unlike write(2) of 0 bytes). Lengths
 * past MAX_RW_COUNT are cut, never EINVAL; zero-length vectors (NULL
 * bases too) are skipped; the vector count is an unsigned int. A vector
 * that is in user space but unmapped ends a file transfer short: the
 * bytes before it move. */
#include "common.h"
#include <limits.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define PG 4096
#define KERNEL_ADDR ((void *)0xffff888000000000UL)

static long rv(int fd, const struct iovec *iov, unsigned long n)
{
    return syscall(SYS_readv, fd, iov, n);
}

static long wv(int fd, const struct iovec *iov, unsigned long n)
{
    return syscall(SYS_writev, fd, iov, n);
}

int main(void)
{
    char a[8] = "abcdefg", b[8] = "1234567", c[16] = {0}, d[16] = {0};
    int fd = open("vec", O_RDWR | O_CREAT | O_TRUNC, 0644);

    /* Zero-length vectors and NULL bases among real ones. */
    struct iovec mixed[4] = {{a, 0}, {a, 3}, {NULL, 0}, {b, 4}};
    show("writev with empty and NULL vectors", wv(fd, mixed, 4));
    lseek(fd, 0, SEEK_SET);
    struct iovec back[3] = {{c, 2}, {NULL, 0}, {d, 10}};
    show("readv back", rv(fd, back, 3));
    out("parts: '%s' '%s'", c, d);
    struct iovec nothing = {NULL, 0};
    show("readv of one NULL empty vector", rv(fd, &nothing, 1));
    show("writev of one NULL empty vector", wv(fd, &nothing, 1));
    show("readv of no vectors", rv(fd, back, 0));
    show("readv of no vectors, NULL array", rv(fd, NULL, 0));

    /* The count. */
    static struct iovec many[1025];
    for (int i = 0; i < 1025; i++)
        many[i] = (struct iovec){NULL, 0};
    show("readv of 1024 empty vectors", rv(fd, many, 1024));
    show("readv of 1025 empty vectors", rv(fd, many, 1025));
    show("readv count 2^32 + 1 (an unsigned int: 1)", rv(fd, back, (1UL << 32) + 1));
    show("readv count -1", rv(fd, back, (unsigned long)-1));

    /* The order of the checks. */
    show("readv bad fd, 1025 vectors", rv(-1, many, 1025));
    show("readv bad fd, NULL array", rv(99, NULL, 1));
    int wo = open("vec", O_WRONLY);
    show("readv write-only fd, NULL array", rv(wo, NULL, 1));
    show("readv write-only fd, 1025 vectors", rv(wo, many, 1025));
    show("readv write-only fd, good vectors", rv(wo, back, 3));
    show("readv write-only fd, no vectors", rv(wo, back, 0));
    int ro = open("vec", O_RDONLY);
    show("writev read-only fd, no vectors", wv(ro, back, 0));
    int op = open("vec", O_PATH);
    show("readv O_PATH fd, 1025 vectors", rv(op, many, 1025));

    /* Lengths: negative as ssize_t is EINVAL even after a bad address;
     * a huge one that is not negative is a bad address. */
    struct iovec neg[2] = {{KERNEL_ADDR, 1}, {c, (size_t)-1}};
    show("readv kernel address then length -1", rv(fd, neg, 2));
    struct iovec big[2] = {{c, SSIZE_MAX / 2 + 1}, {d, SSIZE_MAX / 2 + 1}};
    show("readv lengths summing past SSIZE_MAX", rv(fd, big, 2));
    struct iovec kern[2] = {{c, 1}, {KERNEL_ADDR, 1}};
    show("readv second base in the kernel", rv(fd, kern, 2));
    show("writev second base in the kernel", wv(fd, kern, 2));
    struct iovec kern_empty = {KERNEL_ADDR, 0};
    show("readv kernel address, length 0", rv(fd, &kern_empty, 1));
    show("readv array at address 8", rv(fd, (struct iovec *)8, 1));

    /* An unmapped vector in the middle: the bytes before it move. */
    char *two = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(two + PG, PG);
    memcpy(two, "0123456789", 10);
    lseek(fd, 0, SEEK_SET);
    ftruncate(fd, 0);
    struct iovec holes[3] = {{two, 10}, {two + PG, 10}, {a, 5}};
    show("writev good, unmapped, good", wv(fd, holes, 3));
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));
    struct iovec first_bad[2] = {{two + PG, 10}, {a, 5}};
    show("writev unmapped first", wv(fd, first_bad, 2));
    lseek(fd, 0, SEEK_SET);
    memset(two, 0, 10);
    show("readv good, unmapped, good", rv(fd, holes, 3));
    out("bytes: '%.10s'", two);
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));
    lseek(fd, 0, SEEK_SET);
    show("readv unmapped first", rv(fd, first_bad, 2));
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));

    /* Pipes: the data of one writev comes out whole. */
    int p[2];
    pipe(p);
    struct iovec pw[4] = {{a, 3}, {NULL, 0}, {b, 4}, {a + 3, 0}};
    show("pipe writev", wv(p[1], pw, 4));
    memset(c, 0, sizeof c);
    memset(d, 0, sizeof d);
    struct iovec pr[2] = {{c, 5}, {d, 5}};
    show("pipe readv", rv(p[0], pr, 2));
    out("parts: '%s' '%s'", c, d);
    show("pipe writev of nothing", wv(p[1], pw + 1, 1));
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    show("pipe readv of nothing, empty pipe", rv(p[0], pw + 1, 1));
    show("pipe readv, empty pipe", rv(p[0], pr, 2));

    /* A datagram socket: writev of nothing sends nothing; write of 0
     * bytes sends an empty datagram. */
    int s[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, s);
    show("dgram writev of nothing", wv(s[0], pw + 1, 1));
    show("dgram recv after it", recv(s[1], c, sizeof c, MSG_DONTWAIT));
    show("dgram write of 0 bytes", write(s[0], a, 0));
    show("dgram recv after it", recv(s[1], c, sizeof c, MSG_DONTWAIT));
    struct iovec sv[2] = {{a, 2}, {b, 3}};
    show("dgram writev of two vectors", wv(s[0], sv, 2));
    memset(c, 0, sizeof c);
    memset(d, 0, sizeof d);
    struct iovec sr[2] = {{c, 4}, {d, 4}};
    show("dgram readv", rv(s[1], sr, 2));
    out("parts: '%s' '%s'", c, d);

    close(fd);
    unlink("vec");
    return 0;
}
