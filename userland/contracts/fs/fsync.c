/* fsync/fdatasync/syncfs/sync succeed on files and directories, fail with
 * EINVAL on pipes and EBADF on bad fds. */
#include "common.h"

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    write(fd, "x", 1);
    check("fsync file", fsync(fd));
    check("fdatasync file", fdatasync(fd));
    int d = open(".", O_RDONLY);
    check("fsync directory", fsync(d));
    check("syncfs", syncfs(fd));
    sync();
    out("sync: returned");
    int p[2];
    pipe(p);
    check("fsync pipe", fsync(p[0]));
    check("fdatasync pipe", fdatasync(p[1]));
    check("fsync bad fd", fsync(1000));
    int ro = open("f", O_RDONLY);
    check("fsync read-only fd", fsync(ro));
    check("sync_file_range", sync_file_range(fd, 0, 1, SYNC_FILE_RANGE_WRITE));
    return 0;
}
