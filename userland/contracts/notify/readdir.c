/* Reading a watched directory: opendir, getdents until the end and
 * closedir report OPEN, ACCESS and CLOSE_NOWRITE with IN_ISDIR to the
 * directory's own watch and, with its name, to its parent's (the two
 * reads merge into one ACCESS while unread); a too small getdents buffer
 * (EINVAL) is an ACCESS too. */
#include "inotify.h"

int main(void)
{
    mkdir("p", 0755);
    mkdir("p/d", 0755);
    put_file("p/d/f", "x");
    int fd = inotify_init1(IN_NONBLOCK);
    int wp = inotify_add_watch(fd, "p", IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE);
    int wd = inotify_add_watch(fd, "p/d", IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE);
    out("wds %d %d", wp, wd);
    DIR *dir = opendir("p/d");
    int n = 0;
    while (readdir(dir))
        n++;
    closedir(dir);
    out("entries %d", n);
    dump("opendir, readdir, closedir", fd);
    int d = open("p/d", O_RDONLY | O_DIRECTORY);
    char small[8];
    long r = syscall(SYS_getdents64, d, small, sizeof small);
    out("getdents64 into 8 bytes: %s", r < 0 ? errname(errno) : "ok");
    dump("small buffer", fd);
    close(d);
    dump("close", fd);
    return 0;
}
