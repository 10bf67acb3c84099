/* A hugetlbfs file has no write method (fs/hugetlbfs/inode.c gives its
 * files read_iter but no write_iter): write(2), pwrite(2) and writev(2)
 * fail with EINVAL, an empty write too, after the EBADF of a file not
 * open for writing; reading works and the file stays empty. Data goes
 * into such a file through mappings of huge pages only. */
#include <sys/mount.h>
#include <sys/uio.h>
#include "common.h"

int main(void)
{
    mkdir("h", 0755);
    check("mount hugetlbfs", mount("hugetlbfs", "h", "hugetlbfs", 0, ""));
    int fd = open("h/f", O_CREAT | O_RDWR, 0600);
    check("create h/f", fd);
    show("write 1 byte", write(fd, "x", 1));
    show("write 0 bytes", write(fd, "", 0));
    show("write 8 KiB", write(fd, calloc(1, 8192), 8192));
    show("pwrite at 0", pwrite(fd, "x", 1, 0));
    struct iovec iov[2] = {{"ab", 2}, {"cd", 2}};
    show("writev", writev(fd, iov, 2));
    char buf[8];
    show("read", read(fd, buf, sizeof buf));
    struct stat st;
    fstat(fd, &st);
    out("size after the writes: %lld", (long long)st.st_size);
    close(fd);

    fd = open("h/f", O_WRONLY | O_APPEND);
    show("O_APPEND write", write(fd, "x", 1));
    close(fd);
    fd = open("h/f", O_RDONLY);
    show("write on a read-only descriptor", write(fd, "x", 1));
    close(fd);

    check("unlink h/f", unlink("h/f"));
    check("umount", umount("h"));
    return 0;
}
