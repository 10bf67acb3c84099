/* FS_IOC_FIEMAP and FIBMAP on tmpfs: shmem has neither fiemap
 * (EOPNOTSUPP, before the argument is read) nor bmap (EINVAL, after the
 * CAP_SYS_RAWIO check: EPERM without it); FIEMAP reaches every file
 * (EOPNOTSUPP on a pipe), FIBMAP only regular files (ENOTTY on a pipe). */
#include "common.h"
#include <sys/ioctl.h>

#define FS_IOC_FIEMAP 0xC020660B
#define FIBMAP 1

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    write(fd, "hello", 5);
    unsigned char buf[32 + 56 * 4];
    memset(buf, 0, sizeof buf);
    ((unsigned long long *)buf)[1] = ~0ULL;
    ((unsigned *)buf)[6] = 4;
    check("fiemap", ioctl(fd, FS_IOC_FIEMAP, buf));
    check("fiemap, bad pointer", ioctl(fd, FS_IOC_FIEMAP, (void *)8));
    int block = 0;
    check("fibmap", ioctl(fd, FIBMAP, &block));
    out("block: %d", block);
    block = -1;
    check("fibmap negative", ioctl(fd, FIBMAP, &block));
    check("fibmap bad pointer", ioctl(fd, FIBMAP, (void *)8));
    int p[2];
    pipe(p);
    check("fiemap on a pipe", ioctl(p[0], FS_IOC_FIEMAP, buf));
    block = 0;
    check("fibmap on a pipe", ioctl(p[0], FIBMAP, &block));
    if (fork() == 0) {
        setuid(65534);
        block = 0;
        check("fibmap as nobody", ioctl(fd, FIBMAP, &block));
        _exit(0);
    }
    wait(NULL);
    return 0;
}
