/* A file an open creates is opened with the access asked for, whatever
 * mode it was created with: as uid 1000, open(new, O_CREAT | O_WRONLY,
 * 0444) gives a descriptor that writes; opening the file again for
 * writing is EACCES, and O_CREAT on the existing file checks its mode as
 * any open does. Also O_CREAT | O_RDWR with mode 0 and O_CREAT | O_TRUNC. */
#include "perm.h"

static void attempt(const char *label, const char *path, int flags, mode_t mode)
{
    int fd = open(path, flags, mode);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    ssize_t w = (flags & O_ACCMODE) != O_RDONLY ? write(fd, "x", 1) : 0;
    out("%s: open ok, write %s", label, w == 1 ? "ok" : w == 0 ? "not asked" : errname(errno));
    close(fd);
}

int main(void)
{
    mkdir("/tmp/create-mode", 0777);
    chmod("/tmp/create-mode", 0777);
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        attempt("new, O_WRONLY, 0444", "/tmp/create-mode/a", O_CREAT | O_WRONLY, 0444);
        attempt("again, O_WRONLY", "/tmp/create-mode/a", O_WRONLY, 0);
        attempt("again, O_CREAT | O_WRONLY", "/tmp/create-mode/a", O_CREAT | O_WRONLY, 0644);
        attempt("again, O_RDONLY", "/tmp/create-mode/a", O_RDONLY, 0);
        attempt("new, O_RDWR, 0", "/tmp/create-mode/b", O_CREAT | O_RDWR, 0);
        attempt("new, O_WRONLY | O_TRUNC, 0400", "/tmp/create-mode/c", O_CREAT | O_WRONLY | O_TRUNC, 0400);
        attempt("again, O_WRONLY | O_TRUNC", "/tmp/create-mode/c", O_WRONLY | O_TRUNC, 0);
        _exit(0);
    }
    reap("child", pid);
    struct stat st;
    if (stat("/tmp/create-mode/a", &st) == 0)
        out("a: mode %o, size %lld", (unsigned)(st.st_mode & 07777), (long long)st.st_size);
    unlink("/tmp/create-mode/a");
    unlink("/tmp/create-mode/b");
    unlink("/tmp/create-mode/c");
    rmdir("/tmp/create-mode");
    return 0;
}
