/* open(O_CREAT): creates with mode & ~umask; O_EXCL fails on an existing
 * name (even a dangling symlink); ENOENT without O_CREAT. */
#include "common.h"

int main(void)
{
    umask(022);
    struct stat st;
    int fd = open("new", O_CREAT | O_WRONLY, 0666);
    out("create: fd=%d", fd);
    fstat(fd, &st);
    out("mode: %o size: %ld", st.st_mode & 07777, (long)st.st_size);
    close(fd);
    show("O_CREAT|O_EXCL on existing", open("new", O_CREAT | O_EXCL | O_WRONLY, 0644));
    show("O_CREAT on existing (no EXCL)", open("new", O_CREAT | O_WRONLY, 0600));
    stat("new", &st);
    out("mode unchanged by second O_CREAT: %o", st.st_mode & 07777);
    show("missing without O_CREAT", open("missing", O_RDONLY));
    show("O_CREAT in missing directory", open("nodir/x", O_CREAT | O_WRONLY, 0644));
    symlink("target-does-not-exist", "dangling");
    show("O_CREAT|O_EXCL on dangling symlink", open("dangling", O_CREAT | O_EXCL | O_WRONLY, 0644));
    int fd2 = open("dangling", O_CREAT | O_WRONLY, 0644);
    out("O_CREAT through dangling symlink creates the target: %s", yesno(fd2 >= 0 && access("target-does-not-exist", F_OK) == 0));
    umask(077);
    close(open("private", O_CREAT | O_WRONLY, 0666));
    stat("private", &st);
    out("with umask 077: %o", st.st_mode & 07777);
    out("umask returns previous: %o", umask(022));
    show("O_CREAT|O_DIRECTORY", open("cd", O_CREAT | O_DIRECTORY | O_RDWR, 0644));
    show("empty path", open("", O_RDONLY));
    return 0;
}
