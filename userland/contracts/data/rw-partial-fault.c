/* Reads and writes of a regular file whose user buffer goes bad part of
 * the way: Linux moves the bytes up to the first bad one and returns that
 * count (the file position moves by it), EFAULT only when no byte moved;
 * a read into a read-only buffer moves nothing. A buffer mapped from the
 * very file being read or written (MAP_SHARED, not yet touched) works.
 * Kevlar once read the file into a kernel buffer first and then failed
 * the whole call with EFAULT, the position already moved past the data. */
#include "common.h"
#include <sys/mman.h>
#include <sys/uio.h>

#define PG 4096

static void pattern(char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        p[i] = (char)(i * 13 + seed + (i >> 9));
}

int main(void)
{
    static char data[4 * PG], cmp[4 * PG];
    pattern(data, sizeof data, 1);
    int fd = open("rwfault", O_RDWR | O_CREAT | O_TRUNC, 0644);
    show("write 16 KiB", write(fd, data, sizeof data));

    /* A buffer of two pages whose second page is not mapped. */
    char *two = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(two + PG, PG);

    lseek(fd, 0, SEEK_SET);
    show("read 8 KiB into one good page", read(fd, two, 2 * PG));
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));
    out("bytes right: %s", yesno(memcmp(two, data, PG) == 0));
    show("read again from there into the bad page", read(fd, two + PG, 100));
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));

    memset(two, 0, PG);
    show("pread 200 across the end of the good page", pread(fd, two + PG - 100, 200, 8));
    out("bytes right: %s", yesno(memcmp(two + PG - 100, data + 8, 100) == 0));
    show("pread 200 into the last 37 bytes of the good page", pread(fd, two + PG - 37, 200, 3));
    out("bytes right: %s", yesno(memcmp(two + PG - 37, data + 3, 37) == 0));

    struct iovec iov[2] = {{two, 300}, {two + PG, 300}};
    show("preadv, the second vector bad", preadv(fd, iov, 2, 0));

    /* Writes from the same buffer. */
    pattern(two, PG, 7);
    lseek(fd, PG, SEEK_SET);
    show("write 8 KiB from one good page", write(fd, two, 2 * PG));
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));
    show("pwrite 200 across the end of the good page", pwrite(fd, two + PG - 100, 200, 3 * PG + 10));
    show("pwrite all bad", pwrite(fd, two + PG, 200, 0));
    struct stat st;
    fstat(fd, &st);
    out("size %ld", (long)st.st_size);
    pread(fd, cmp, sizeof cmp, 0);
    memcpy(data + PG, two, PG);
    memcpy(data + 3 * PG + 10, two + PG - 100, 100);
    out("file right: %s", yesno(memcmp(cmp, data, sizeof data) == 0));

    /* Appending from a partly bad buffer: the file grows by what moved. */
    int afd = open("rwfault", O_WRONLY | O_APPEND);
    show("append 8 KiB from one good page", write(afd, two, 2 * PG));
    fstat(fd, &st);
    out("size %ld", (long)st.st_size);
    close(afd);
    ftruncate(fd, sizeof data);

    /* A read-only buffer: nothing moves. */
    char *ro = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    lseek(fd, 0, SEEK_SET);
    show("read into a read-only page", read(fd, ro, 100));
    out("position %ld", (long)lseek(fd, 0, SEEK_CUR));
    show("write from a read-only page", write(fd, ro, 100));
    memset(data, 0, 100);

    /* A buffer mapped from the file itself, untouched before the call. */
    char *map = mmap(NULL, sizeof data, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    show("pread page 0 into the file's own page 2", pread(fd, map + 2 * PG, PG, 0));
    show("pwrite the file's own page 1 to page 3", pwrite(fd, map + PG, PG, 3 * PG));
    pread(fd, cmp, sizeof cmp, 0);
    memcpy(data + 2 * PG, data, PG);
    memcpy(data + 3 * PG, data + PG, PG);
    out("file right: %s", yesno(memcmp(cmp, data, sizeof data) == 0));
    out("mapping right: %s", yesno(memcmp(map, data, sizeof data) == 0));
    munmap(map, sizeof data);

    close(fd);
    unlink("rwfault");
    return 0;
}
