/* Advisory locks between processes: fcntl F_SETLK/F_GETLK record locks
 * (conflicts, F_GETLK reporting the holder, unlock, released at exit) and
 * flock (LOCK_EX/LOCK_SH/LOCK_NB). */
#include "common.h"
#include <sys/file.h>

static const char *ltype(int t) { return t == F_RDLCK ? "F_RDLCK" : t == F_WRLCK ? "F_WRLCK" : t == F_UNLCK ? "F_UNLCK" : "?"; }

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    write(fd, "0123456789", 10);
    int go[2], done[2];
    pipe(go);
    pipe(done);
    pid_t pid = fork();
    if (pid == 0) {
        int cfd = open("f", O_RDWR);
        struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 2, .l_len = 3};
        char c = fcntl(cfd, F_SETLK, &l) == 0 ? 'y' : 'n';
        int ffd = open("f", O_RDONLY);
        char c2 = flock(ffd, LOCK_EX) == 0 ? 'y' : 'n';
        write(go[1], &c, 1);
        write(go[1], &c2, 1);
        read(done[0], &c, 1);
        _exit(0);
    }
    char c[2];
    read_full(go[0], c, 2);
    out("child took a write lock on bytes 2-4: %s, flock LOCK_EX: %s", c[0] == 'y' ? "yes" : "no", c[1] == 'y' ? "yes" : "no");
    struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    check("F_GETLK whole file", fcntl(fd, F_GETLK, &q));
    out("conflict: %s start=%ld len=%ld pid is child=%s", ltype(q.l_type), (long)q.l_start, (long)q.l_len, yesno(q.l_pid == pid));
    struct flock free_range = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 5};
    check("F_GETLK bytes 5-9", fcntl(fd, F_GETLK, &free_range));
    out("result: %s", ltype(free_range.l_type));
    struct flock w = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 4, .l_len = 1};
    check("F_SETLK overlapping write lock", fcntl(fd, F_SETLK, &w));
    struct flock r = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 3, .l_len = 1};
    check("F_SETLK overlapping read lock", fcntl(fd, F_SETLK, &r));
    check("F_SETLK free bytes 6-7", fcntl(fd, F_SETLK, &(struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 6, .l_len = 2}));
    int f2 = open("f", O_RDONLY);
    check("flock LOCK_EX|LOCK_NB", flock(f2, LOCK_EX | LOCK_NB));
    check("flock LOCK_SH|LOCK_NB", flock(f2, LOCK_SH | LOCK_NB));
    check("flock bad operation", flock(f2, 0));
    write(done[1], "x", 1);
    reap("child", pid);
    q = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    fcntl(fd, F_GETLK, &q);
    out("after the child exited, F_GETLK: %s", ltype(q.l_type));
    check("F_SETLKW now succeeds", fcntl(fd, F_SETLKW, &w));
    check("flock LOCK_EX|LOCK_NB now", flock(f2, LOCK_EX | LOCK_NB));
    check("F_SETLK on O_RDONLY fd with F_WRLCK", fcntl(f2, F_SETLK, &w));
    check("F_SETLK bad type", fcntl(fd, F_SETLK, &(struct flock){.l_type = 42, .l_whence = SEEK_SET}));
    return 0;
}
