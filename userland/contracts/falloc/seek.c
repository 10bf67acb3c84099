/* SEEK_DATA and SEEK_HOLE on tmpfs: pages written are data, holes and
 * pages fallocate added but nothing wrote are holes, the end of the file
 * is a hole, and offsets at or past the end are ENXIO. */
#include "common.h"

static void seek(int fd, const char *label, off_t off, int whence)
{
    off_t r = lseek(fd, off, whence);
    if (r < 0)
        out("%s %s %ld: %s", label, whence == SEEK_DATA ? "DATA" : "HOLE", (long)off, errname(errno));
    else
        out("%s %s %ld: %ld", label, whence == SEEK_DATA ? "DATA" : "HOLE", (long)off, (long)r);
}

static void walk(int fd, const char *label, off_t size)
{
    for (off_t off = 0; off <= size + 4096; off += 2048) {
        seek(fd, label, off, SEEK_DATA);
        seek(fd, label, off, SEEK_HOLE);
    }
}

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    walk(fd, "empty", 0);
    ftruncate(fd, 40960);
    walk(fd, "sparse", 40960);
    pwrite(fd, "x", 1, 8192 + 100);
    pwrite(fd, "y", 1, 20480);
    pwrite(fd, "z", 1, 24576);
    walk(fd, "three pages", 40960);
    fallocate(fd, 0, 28672, 8192);
    walk(fd, "fallocated", 40960);
    pwrite(fd, "w", 1, 32768 + 5);
    walk(fd, "fallocated then written", 40960);
    fallocate(fd, 0x03, 20480, 4096);
    walk(fd, "punched", 40960);
    fallocate(fd, 0x01, 40960, 8192);
    pwrite(fd, "e", 1, 40959);
    walk(fd, "data at the end", 40960);
    seek(fd, "negative", -1, SEEK_DATA);
    seek(fd, "negative", -1, SEEK_HOLE);
    out("position after a failed seek: %ld", (long)lseek(fd, 0, SEEK_CUR));
    lseek(fd, 8192, SEEK_DATA);
    out("position after SEEK_DATA: %ld", (long)lseek(fd, 0, SEEK_CUR));
    return 0;
}
