/* preadv2/pwritev2: offset -1 uses and moves the file position, another
 * offset leaves it; offsets below -1 are EINVAL; unknown RWF_* flags are
 * EOPNOTSUPP (but not when there is nothing to move); RWF_HIPRI, DSYNC and
 * SYNC are accepted; RWF_APPEND writes at the end; RWF_NOWAIT on a pipe
 * or a tmpfs file is EOPNOTSUPP (Linux 6.1); a pipe has no offset
 * (ESPIPE); the access mode counts (EBADF). */
#include "common.h"
#include <sys/uio.h>

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x01
#define RWF_DSYNC 0x02
#define RWF_SYNC 0x04
#define RWF_NOWAIT 0x08
#define RWF_APPEND 0x10
#endif
#ifndef SYS_preadv2
#define SYS_preadv2 327
#endif
#ifndef SYS_pwritev2
#define SYS_pwritev2 328
#endif

static long rd(int fd, char *buf, size_t len, long off, int flags)
{
    struct iovec v = { buf, len };
    return syscall(SYS_preadv2, fd, &v, 1, off, 0, flags);
}

static long wr(int fd, const char *buf, long off, int flags)
{
    struct iovec v = { (void *)buf, strlen(buf) };
    return syscall(SYS_pwritev2, fd, &v, 1, off, 0, flags);
}

static void contents(const char *label)
{
    char buf[64] = { 0 };
    int fd = open("f", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    out("%s: \"%s\"", label, buf);
}

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    show("pwritev2 at -1", wr(fd, "hello world", -1, 0));
    out("position: %ld", (long)lseek(fd, 0, SEEK_CUR));
    show("pwritev2 at 0", wr(fd, "H", 0, 0));
    out("position kept: %ld", (long)lseek(fd, 0, SEEK_CUR));
    char buf[32] = { 0 };
    show("preadv2 at 6", rd(fd, buf, 5, 6, 0));
    out("read: %s, position kept: %ld", buf, (long)lseek(fd, 0, SEEK_CUR));
    lseek(fd, 2, SEEK_SET);
    memset(buf, 0, sizeof buf);
    show("preadv2 at -1", rd(fd, buf, 3, -1, 0));
    out("read: %s, position moved: %ld", buf, (long)lseek(fd, 0, SEEK_CUR));
    show("preadv2 at -2", rd(fd, buf, 3, -2, 0));
    show("pwritev2 at -5", wr(fd, "x", -5, 0));
    show("preadv2 flags 1<<30", rd(fd, buf, 3, 0, 1 << 30));
    show("pwritev2 flags 1<<30", wr(fd, "x", 0, 1 << 30));
    struct iovec none = { buf, 0 };
    show("preadv2 nothing, flags 1<<30", syscall(SYS_preadv2, fd, &none, 1, 0, 0, 1 << 30));
    show("preadv2 RWF_HIPRI", rd(fd, buf, 3, 0, RWF_HIPRI));
    show("pwritev2 RWF_DSYNC", wr(fd, "h", 0, RWF_DSYNC));
    show("pwritev2 RWF_SYNC", wr(fd, "e", 1, RWF_SYNC));
    show("preadv2 RWF_APPEND (ignored)", rd(fd, buf, 3, 0, RWF_APPEND));
    lseek(fd, 1, SEEK_SET);
    show("pwritev2 RWF_APPEND at 0", wr(fd, "!", 0, RWF_APPEND));
    out("position kept: %ld", (long)lseek(fd, 0, SEEK_CUR));
    show("pwritev2 RWF_APPEND at -1", wr(fd, "?", -1, RWF_APPEND));
    out("position at the end: %ld", (long)lseek(fd, 0, SEEK_CUR));
    contents("file");
    show("preadv2 RWF_NOWAIT on tmpfs", rd(fd, buf, 3, 0, RWF_NOWAIT));
    show("pwritev2 RWF_NOWAIT on tmpfs", wr(fd, "x", 0, RWF_NOWAIT));

    int ro = open("f", O_RDONLY);
    show("pwritev2 on a read-only fd", wr(ro, "x", 0, 0));
    show("preadv2 bad fd", rd(999, buf, 3, 0, 0));
    show("preadv2 bad iovec", syscall(SYS_preadv2, fd, (void *)8, 1, 0, 0, 0));
    show("preadv2 1025 iovecs", syscall(SYS_preadv2, fd, &none, 1025, 0, 0, 0));

    int p[2];
    pipe(p);
    show("preadv2 pipe at 0", rd(p[0], buf, 3, 0, 0));
    show("preadv2 pipe RWF_NOWAIT, empty", rd(p[0], buf, 3, -1, RWF_NOWAIT));
    show("pwritev2 pipe RWF_NOWAIT", wr(p[1], "abc", -1, RWF_NOWAIT));
    memset(buf, 0, sizeof buf);
    show("preadv2 pipe RWF_NOWAIT, data", rd(p[0], buf, 8, -1, RWF_NOWAIT));
    out("pipe read: %s", buf);
    close(p[1]);
    show("preadv2 pipe RWF_NOWAIT, no writer", rd(p[0], buf, 3, -1, RWF_NOWAIT));
    return 0;
}
