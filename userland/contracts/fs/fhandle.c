/* name_to_handle_at and open_by_handle_at on tmpfs, devtmpfs and cgroup2:
 * handle sizes and types, EOVERFLOW with the size needed, the mount id,
 * symbolic links followed only when asked, reopening a file (also unlinked
 * but open), ESTALE for a deleted file or a corrupt handle, EOPNOTSUPP on
 * procfs and pipes, CAP_DAC_READ_SEARCH for open_by_handle_at. */
#include "../common.h"
#include <sys/mount.h>

struct fh {
    unsigned int handle_bytes;
    int handle_type;
    unsigned char f_handle[128];
};

static long n2h(int dirfd, const char *path, struct fh *h, int *mnt, int flags)
{
    return syscall(SYS_name_to_handle_at, dirfd, path, h, mnt, flags);
}

static long obh(int mfd, struct fh *h, int flags)
{
    return syscall(SYS_open_by_handle_at, mfd, h, flags);
}

/* The mnt_id /proc/self/fdinfo shows for fd. */
static int fdinfo_mnt(int fd)
{
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/self/fdinfo/%d", fd);
    int f = open(p, O_RDONLY);
    if (f < 0)
        return -1;
    ssize_t n = read(f, buf, sizeof buf - 1);
    close(f);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *m = strstr(buf, "mnt_id:");
    return m ? atoi(m + 7) : -1;
}

static void sizes(const char *label, const char *path)
{
    struct fh h;
    int mnt = -1;
    memset(&h, 0, sizeof h);
    h.handle_bytes = 0;
    errno = 0;
    long r = n2h(AT_FDCWD, path, &h, &mnt, 0);
    out("%s: size 0: %ld %s bytes=%u type=%d", label, r, r ? errname(errno) : "", h.handle_bytes, h.handle_type);
    unsigned need = h.handle_bytes;
    int fd = open(path, O_PATH);
    out("%s: mount id as fdinfo: %s", label, yesno(fd >= 0 && mnt == fdinfo_mnt(fd)));
    close(fd);
    if (need >= 4) {
        memset(&h, 0, sizeof h);
        h.handle_bytes = need - 1;
        r = n2h(AT_FDCWD, path, &h, &mnt, 0);
        out("%s: size need-1: %ld %s bytes=%u type=%d", label, r, r ? errname(errno) : "", h.handle_bytes, h.handle_type);
    }
    memset(&h, 0, sizeof h);
    h.handle_bytes = 128;
    r = n2h(AT_FDCWD, path, &h, &mnt, 0);
    out("%s: size 128: %ld %s bytes=%u type=%d", label, r, r ? errname(errno) : "", h.handle_bytes, h.handle_type);
}

int main(void)
{
    struct fh h, h2;
    int mnt;

    put_file("file", "hello");
    mkdir("dir", 0755);
    symlink("file", "link");

    sizes("tmpfs file", "file");
    sizes("tmpfs dir", "dir");
    sizes("devtmpfs", "/dev/null");

    /* Errors of name_to_handle_at. */
    memset(&h, 0, sizeof h);
    h.handle_bytes = 128;
    check("bad flags", n2h(AT_FDCWD, "file", &h, &mnt, 0x1));
    check("empty path", n2h(AT_FDCWD, "", &h, &mnt, 0));
    check("missing", n2h(AT_FDCWD, "nothing", &h, &mnt, 0));
    check("procfs", n2h(AT_FDCWD, "/proc/self/status", &h, &mnt, 0));
    int p[2];
    pipe(p);
    check("pipe AT_EMPTY_PATH", n2h(p[0], "", &h, &mnt, AT_EMPTY_PATH));
    h.handle_bytes = 129;
    check("129 bytes", n2h(AT_FDCWD, "file", &h, &mnt, 0));
    h.handle_bytes = 129;
    check("129 bytes on procfs", n2h(AT_FDCWD, "/proc/self/status", &h, &mnt, 0));
    h.handle_bytes = 128;
    rcheck("bad handle pointer", rawsys(SYS_name_to_handle_at, AT_FDCWD, (long)"file", 8, (long)&mnt, 0, 0));
    rcheck("bad mount id pointer", rawsys(SYS_name_to_handle_at, AT_FDCWD, (long)"file", (long)&h, 8, 0, 0));
    int dfd = open("dir", O_RDONLY | O_DIRECTORY);
    int ffd = open("file", O_RDONLY);
    check("dirfd relative", n2h(dfd, "..", &h, &mnt, 0));
    check("file as dirfd", n2h(ffd, "x", &h, &mnt, 0));
    check("file AT_EMPTY_PATH", n2h(ffd, "", &h, &mnt, AT_EMPTY_PATH));

    /* The link itself unless AT_SYMLINK_FOLLOW. */
    struct stat st, st2;
    memset(&h, 0, sizeof h);
    h.handle_bytes = 128;
    check("link", n2h(AT_FDCWD, "link", &h, &mnt, 0));
    check("open link", obh(AT_FDCWD, &h, O_RDONLY));
    int fd = obh(AT_FDCWD, &h, O_PATH);
    check("open link O_PATH", fd);
    fstatat(fd, "", &st, AT_EMPTY_PATH);
    out("O_PATH is the link: %s", ftype(st.st_mode));
    close(fd);
    memset(&h, 0, sizeof h);
    h.handle_bytes = 128;
    check("link followed", n2h(AT_FDCWD, "link", &h, &mnt, AT_SYMLINK_FOLLOW));
    fd = obh(AT_FDCWD, &h, O_RDONLY);
    check("open followed", fd);
    char buf[16] = {0};
    read(fd, buf, sizeof buf - 1);
    out("read: %s", buf);
    fstat(fd, &st);
    stat("file", &st2);
    out("same inode: %s", yesno(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev));
    close(fd);

    /* open_by_handle_at's checks and flags. */
    memset(&h, 0, sizeof h);
    h.handle_bytes = 128;
    n2h(AT_FDCWD, "file", &h, &mnt, 0);
    fd = obh(ffd, &h, O_RDWR | O_CLOEXEC);
    check("open O_RDWR via file fd", fd);
    out("cloexec: %s", yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    write(fd, "HE", 2);
    close(fd);
    fd = open("file", O_RDONLY);
    memset(buf, 0, sizeof buf);
    read(fd, buf, sizeof buf - 1);
    out("after write: %s", buf);
    close(fd);
    check("O_DIRECTORY on a file", obh(AT_FDCWD, &h, O_RDONLY | O_DIRECTORY));
    check("O_CREAT|O_EXCL", obh(AT_FDCWD, &h, O_RDWR | O_CREAT | O_EXCL));
    check("O_CREAT", obh(AT_FDCWD, &h, O_RDWR | O_CREAT));
    int pfd = open("/proc", O_RDONLY);
    check("mount fd on procfs", obh(pfd, &h, O_RDONLY));
    check("mount fd a pipe", obh(p[0], &h, O_RDONLY));
    check("bad mount fd", obh(99, &h, O_RDONLY));
    memcpy(&h2, &h, sizeof h);
    h2.f_handle[0] ^= 0xff;
    check("corrupt generation", obh(AT_FDCWD, &h2, O_RDONLY));
    memcpy(&h2, &h, sizeof h);
    h2.handle_bytes = 8;
    check("short handle", obh(AT_FDCWD, &h2, O_RDONLY));
    h2.handle_bytes = 0;
    check("0 bytes", obh(AT_FDCWD, &h2, O_RDONLY));
    h2.handle_bytes = 129;
    check("129 bytes", obh(AT_FDCWD, &h2, O_RDONLY));
    memcpy(&h2, &h, sizeof h);
    h2.handle_type = 7;
    check("other type", obh(AT_FDCWD, &h2, O_RDONLY));
    rcheck("bad handle pointer", rawsys(SYS_open_by_handle_at, AT_FDCWD, 8, O_RDONLY, 0, 0, 0));

    memset(&h2, 0, sizeof h2);
    h2.handle_bytes = 128;
    n2h(AT_FDCWD, "dir", &h2, &mnt, 0);
    fd = obh(AT_FDCWD, &h2, O_RDONLY | O_DIRECTORY);
    check("open dir", fd);
    check("openat in it", openat(fd, "../file", O_RDONLY));
    check("dir O_WRONLY", obh(AT_FDCWD, &h2, O_WRONLY));

    /* Unlinked: found while open, stale once gone. */
    put_file("gone", "x");
    struct fh hg;
    memset(&hg, 0, sizeof hg);
    hg.handle_bytes = 128;
    n2h(AT_FDCWD, "gone", &hg, &mnt, 0);
    int keep = open("gone", O_RDONLY);
    unlink("gone");
    fd = obh(AT_FDCWD, &hg, O_RDONLY);
    check("unlinked but open", fd);
    fstat(fd, &st);
    out("nlink: %ld", (long)st.st_nlink);
    close(fd);
    close(keep);
    check("unlinked and closed", obh(AT_FDCWD, &hg, O_RDONLY));

    /* Without CAP_DAC_READ_SEARCH. */
    pid_t pid = fork();
    if (pid == 0) {
        setgid(65534);
        setuid(65534);
        struct fh hn;
        memset(&hn, 0, sizeof hn);
        hn.handle_bytes = 128;
        check("nobody name_to_handle_at", n2h(AT_FDCWD, "file", &hn, &mnt, 0));
        check("nobody open_by_handle_at", obh(AT_FDCWD, &hn, O_RDONLY));
        hn.handle_bytes = 0;
        check("nobody 0 bytes", obh(AT_FDCWD, &hn, O_RDONLY));
        _exit(0);
    }
    reap("nobody", pid);

    /* cgroup2: the handle is the node id, as st_ino. */
    mkdir("cg", 0755);
    if (mount("none", "cg", "cgroup2", 0, NULL) == 0) {
        memset(&h, 0, sizeof h);
        h.handle_bytes = 128;
        check("cgroup2", n2h(AT_FDCWD, "cg", &h, &mnt, 0));
        out("cgroup2 bytes=%u type=%#x", h.handle_bytes, h.handle_type);
        stat("cg", &st);
        unsigned long long id;
        memcpy(&id, h.f_handle, 8);
        out("cgroup2 id is st_ino: %s", yesno(id == (unsigned long long)st.st_ino));
        int cfd = open("cg", O_RDONLY | O_DIRECTORY);
        fd = obh(cfd, &h, O_RDONLY | O_DIRECTORY);
        check("cgroup2 open", fd);
        fstat(fd, &st2);
        out("cgroup2 same: %s", yesno(st.st_ino == st2.st_ino));
        close(fd);
        close(cfd);
        umount("cg");
    } else {
        out("cgroup2 mount: %s", errname(errno));
    }
    return 0;
}
