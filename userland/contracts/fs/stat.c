/* stat/lstat/fstat/newfstatat: the deterministic fields (type, permission
 * bits, size, nlink, uid/gid) of each kind of file; AT_EMPTY_PATH. */
#include "common.h"

static void show_st(const char *label, int r, struct stat *s)
{
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: %s mode=%o size=%ld nlink=%ld uid=%d gid=%d", label, ftype(s->st_mode), s->st_mode & 07777,
        S_ISLNK(s->st_mode) || S_ISREG(s->st_mode) ? (long)s->st_size : 0L,
        S_ISDIR(s->st_mode) ? 0L : (long)s->st_nlink, s->st_uid, s->st_gid);
}

int main(void)
{
    umask(022);
    struct stat s;
    put_file("file", "twelve bytes");
    mkdir("dir", 0750);
    symlink("file", "link");
    mkfifo("fifo", 0600);
    show_st("stat file", stat("file", &s), &s);
    show_st("stat dir (size and nlink not shown: fs-specific)", stat("dir", &s), &s);
    show_st("lstat link", lstat("link", &s), &s);
    show_st("stat link", stat("link", &s), &s);
    show_st("stat fifo", stat("fifo", &s), &s);
    int fd = open("file", O_RDONLY);
    show_st("fstat", fstat(fd, &s), &s);
    show_st("fstatat AT_SYMLINK_NOFOLLOW", fstatat(AT_FDCWD, "link", &s, AT_SYMLINK_NOFOLLOW), &s);
    show_st("fstatat AT_EMPTY_PATH", fstatat(fd, "", &s, AT_EMPTY_PATH), &s);
    show_st("fstatat empty path without flag", fstatat(fd, "", &s, 0), &s);
    show_st("fstatat bad flags", fstatat(AT_FDCWD, "file", &s, 0x1), &s);
    show_st("stat missing", stat("missing", &s), &s);
    show_st("stat /dev/null", stat("/dev/null", &s), &s);
    out("/dev/null rdev: %u:%u", major(s.st_rdev), minor(s.st_rdev));
    int p[2];
    pipe(p);
    fstat(p[0], &s);
    out("pipe fstat: %s", ftype(s.st_mode));
    fstat(fd, &s);
    out("st_blksize positive: %s", yesno(s.st_blksize > 0));
    out("st_blocks for 12 bytes (512-byte units) > 0: %s", yesno(s.st_blocks > 0));
    struct stat s2;
    stat("link", &s2);
    out("link and target same inode: %s", yesno(s.st_ino == s2.st_ino && s.st_dev == s2.st_dev));
    return 0;
}
