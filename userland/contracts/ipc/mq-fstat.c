/* fstat of an mq_open descriptor: the queue's node in the mqueue file
 * system (a regular file with the queue's mode and owner, size 80, the
 * same device and inode number as stat of its name under a mount),
 * following a chmod through the mount; the descriptor does not keep
 * the mount busy, a file opened through it does. */
#include "ipc.h"
#include <mqueue.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define DIR_ "mq-fstat"

int main(void)
{
    mq_unlink("/kevlar-mq-fstat");
    umask(022);
    mqd_t q = mq_open("/kevlar-mq-fstat", O_RDWR | O_CREAT, 0640, NULL);
    out("mq_open: %s", q < 0 ? errname(errno) : "ok");
    struct stat fs, ps;
    if (check("fstat", fstat(q, &fs)) == 0)
        out("fstat: mode %o nlink %lu size %ld uid %u", fs.st_mode, (unsigned long)fs.st_nlink, (long)fs.st_size, fs.st_uid);
    mkdir(DIR_, 0755);
    if (check("mount", mount("none", DIR_, "mqueue", 0, NULL)) == 0) {
        if (check("stat", stat(DIR_ "/kevlar-mq-fstat", &ps)) == 0)
            out("same node: dev %s ino %s", yesno(ps.st_dev == fs.st_dev), yesno(ps.st_ino == fs.st_ino));
        check("chmod", chmod(DIR_ "/kevlar-mq-fstat", 0604));
        fstat(q, &fs);
        out("fstat after chmod: mode %o", fs.st_mode);
        int fd = open(DIR_ "/kevlar-mq-fstat", O_RDONLY);
        check("umount with the queue's file open through it", umount(DIR_));
        close(fd);
        check("umount", umount(DIR_));
    }
    rmdir(DIR_);
    mq_close(q);
    mq_unlink("/kevlar-mq-fstat");
    return 0;
}
