/* fallocate(2) on tmpfs: the modes shmem has (allocate, KEEP_SIZE,
 * PUNCH_HOLE|KEEP_SIZE), the ones it refuses, and vfs_fallocate's checks
 * of the mode, the range and the kind of file, in Linux's order. */
#include "common.h"
#include <sys/socket.h>
#include <sys/eventfd.h>

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#define PUNCH 0x02
#define NO_HIDE_STALE 0x04
#define COLLAPSE 0x08
#define ZERO 0x10
#define INSERT 0x20
#define UNSHARE 0x40
#define KEEP FALLOC_FL_KEEP_SIZE

static void st(const char *label, int fd)
{
    struct stat s;
    fstat(fd, &s);
    out("%s: size %ld blocks %ld", label, (long)s.st_size, (long)s.st_blocks);
}

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    check("allocate 10000", fallocate(fd, 0, 0, 10000));
    st("after allocate", fd);
    check("keep size past the end", fallocate(fd, KEEP, 40960, 4096));
    st("after keep size", fd);
    check("allocate inside", fallocate(fd, 0, 100, 100));
    st("after allocate inside", fd);
    char buf[8] = "xxxxxxx";
    pread(fd, buf, 8, 5000);
    out("reads zeros: %s", yesno(!memcmp(buf, "\0\0\0\0\0\0\0\0", 8)));

    /* Punch: partial pages zeroed, whole ones freed, size kept. */
    char page[4096];
    memset(page, 'a', sizeof page);
    for (int i = 0; i < 4; i++)
        pwrite(fd, page, sizeof page, i * 4096);
    st("written", fd);
    check("punch without keep size", fallocate(fd, PUNCH, 0, 4096));
    check("punch 2048+8192", fallocate(fd, PUNCH | KEEP, 2048, 8192));
    st("after punch", fd);
    char c;
    for (long off = 0; off < 16384; off += 1024) {
        pread(fd, &c, 1, off);
        out("byte %ld: %c", off, c ? c : '0');
    }
    check("punch past the end", fallocate(fd, PUNCH | KEEP, 1 << 20, 4096));
    st("after punch past the end", fd);

    /* Modes shmem does not have, and vfs_fallocate's own checks. */
    check("zero range", fallocate(fd, ZERO, 0, 4096));
    check("zero range keep size", fallocate(fd, ZERO | KEEP, 0, 4096));
    check("collapse", fallocate(fd, COLLAPSE, 0, 4096));
    check("insert", fallocate(fd, INSERT, 0, 4096));
    check("unshare", fallocate(fd, UNSHARE, 0, 4096));
    check("collapse keep size", fallocate(fd, COLLAPSE | KEEP, 0, 4096));
    check("insert keep size", fallocate(fd, INSERT | KEEP, 0, 4096));
    check("unshare zero", fallocate(fd, UNSHARE | ZERO, 0, 4096));
    check("unshare punch", fallocate(fd, UNSHARE | PUNCH, 0, 4096));
    check("punch zero keep", fallocate(fd, PUNCH | ZERO | KEEP, 0, 4096));
    check("no hide stale", fallocate(fd, PUNCH | KEEP | NO_HIDE_STALE, 0, 4096));
    check("unknown bit", fallocate(fd, 0x80, 0, 4096));
    check("unknown high bit", fallocate(fd, 0x10000, 0, 4096));
    check("zero length", fallocate(fd, 0, 0, 0));
    check("negative length", fallocate(fd, 0, 0, -1));
    check("negative offset", fallocate(fd, 0, -1, 10));
    check("negative offset, bad mode", fallocate(fd, 0x80, -1, 10));
    check("offset + len wraps", fallocate(fd, 0, 0x7fffffffffff0000L, 0x20000));
    check("huge keep size", fallocate(fd, KEEP, 0x7fff000000000000L, 4096));
    st("after refusals", fd);

    int ro = open("f", O_RDONLY);
    check("read-only fd", fallocate(ro, 0, 0, 4096));
    check("read-only fd, bad mode", fallocate(ro, 0x80, 0, 4096));
    int path = open("f", O_PATH);
    check("O_PATH fd", fallocate(path, 0, 0, 4096));
    check("bad fd", fallocate(999, 0, 0, 4096));
    int dir = open(".", O_RDONLY | O_DIRECTORY);
    check("directory", fallocate(dir, 0, 0, 4096));
    int p[2];
    pipe(p);
    check("pipe write end", fallocate(p[1], 0, 0, 4096));
    check("pipe read end", fallocate(p[0], 0, 0, 4096));
    mkfifo("fifo", 0644);
    int ff = open("fifo", O_RDWR);
    check("fifo", fallocate(ff, 0, 0, 4096));
    int s[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, s);
    check("socket", fallocate(s[0], 0, 0, 4096));
    int ev = eventfd(0, 0);
    check("eventfd", fallocate(ev, 0, 0, 4096));
    int null = open("/dev/null", O_WRONLY);
    check("/dev/null", fallocate(null, 0, 0, 4096));
    int ap = open("f", O_WRONLY | O_APPEND);
    check("O_APPEND allocate", fallocate(ap, 0, 0, 8192));
    check("O_APPEND punch", fallocate(ap, PUNCH | KEEP, 0, 8192));
    st("end", fd);
    return 0;
}
