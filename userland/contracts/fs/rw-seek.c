/* read/write/pread/pwrite/readv/writev/lseek: offsets, SEEK_END beyond the
 * end makes a hole of zeros, pread/pwrite leave the offset alone, short
 * reads at EOF, negative offsets are EINVAL. */
#include "common.h"
#include <sys/uio.h>

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    show("write", write(fd, "0123456789", 10));
    show("lseek SEEK_CUR 0", lseek(fd, 0, SEEK_CUR));
    show("lseek SEEK_SET 2", lseek(fd, 2, SEEK_SET));
    char buf[64] = {0};
    show("read 3", read(fd, buf, 3));
    out("data: %s", buf);
    show("lseek SEEK_CUR +2", lseek(fd, 2, SEEK_CUR));
    show("lseek SEEK_END -1", lseek(fd, -1, SEEK_END));
    show("lseek SEEK_END +5", lseek(fd, 5, SEEK_END));
    show("write after the end", write(fd, "X", 1));
    struct stat st;
    fstat(fd, &st);
    out("size: %ld", (long)st.st_size);
    memset(buf, 'z', sizeof buf);
    show("pread hole region", pread(fd, buf, 6, 10));
    out("hole bytes: %d %d %d %d %d, then %c", buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
    show("offset unchanged by pread", lseek(fd, 0, SEEK_CUR));
    show("pwrite at 0", pwrite(fd, "ab", 2, 0));
    show("offset unchanged by pwrite", lseek(fd, 0, SEEK_CUR));
    show("read at EOF", read(fd, buf, 10));
    show("pread past EOF", pread(fd, buf, 10, 100));
    show("pread straddling EOF", pread(fd, buf, 10, 12));
    show("lseek negative", lseek(fd, -100, SEEK_SET));
    show("lseek bad whence", lseek(fd, 0, 42));
    show("pread negative offset", pread(fd, buf, 1, -1));
    show("lseek far beyond", lseek(fd, 1L << 40, SEEK_SET));

    struct iovec wv[3] = {{"one-", 4}, {"", 0}, {"two", 3}};
    lseek(fd, 0, SEEK_SET);
    ftruncate(fd, 0);
    show("writev", writev(fd, wv, 3));
    char a[3] = {0}, b[8] = {0};
    struct iovec rv[2] = {{a, 2}, {b, 7}};
    lseek(fd, 0, SEEK_SET);
    show("readv", readv(fd, rv, 2));
    out("readv parts: '%.2s' '%s'", a, b);
    show("preadv at 4", preadv(fd, rv, 2, 4));
    out("preadv parts: '%.2s' '%.1s'", a, b);
    show("pwritev at 1", pwritev(fd, wv, 1, 1));
    memset(b, 0, sizeof b);
    pread(fd, b, 7, 0);
    out("contents: %s", b);
    show("readv with iovcnt -1", readv(fd, rv, -1));
    show("readv with iovcnt 1025", readv(fd, rv, 1025));
    show("write 0 bytes", write(fd, buf, 0));
    return 0;
}
