/* Events about the watched object itself: DELETE_SELF then IGNORED when a
 * watched file is unlinked (after ATTRIB for its link count) and when a
 * watched directory is removed, MOVE_SELF on rename, IN_ONESHOT (one
 * event, then IGNORED), IN_EXCL_UNLINK (no events from an unlinked child
 * still open), a file's own open/write/close events without a name. */
#include "inotify.h"

int main(void)
{
    int fd = inotify_init1(IN_NONBLOCK);
    put_file("f", "x");
    int wd = inotify_add_watch(fd, "f", IN_ALL_EVENTS);
    out("wd %d", wd);
    int f = open("f", O_RDWR);
    write(f, "ab", 2);
    close(f);
    dump("a file's own events", fd);
    rename("f", "g");
    dump("rename", fd);
    unlink("g");
    dump("unlink", fd);

    put_file("h", "x");
    f = open("h", O_RDONLY);
    wd = inotify_add_watch(fd, "h", IN_ALL_EVENTS);
    unlink("h");
    dump("unlink while open", fd);
    close(f);
    dump("last close", fd);

    mkdir("d", 0755);
    wd = inotify_add_watch(fd, "d", IN_ALL_EVENTS);
    rmdir("d");
    dump("rmdir", fd);

    put_file("o", "x");
    wd = inotify_add_watch(fd, "o", IN_MODIFY | IN_ONESHOT);
    put_file("o", "y");
    dump("oneshot", fd);
    put_file("o", "z");
    dump("oneshot after", fd);

    mkdir("e", 0755);
    wd = inotify_add_watch(fd, "e", IN_MODIFY | IN_CLOSE_WRITE | IN_EXCL_UNLINK);
    f = open("e/x", O_WRONLY | O_CREAT, 0644);
    write(f, "1", 1);
    unlink("e/x");
    write(f, "2", 1);
    close(f);
    dump("IN_EXCL_UNLINK", fd);
    mkdir("e2", 0755);
    wd = inotify_add_watch(fd, "e2", IN_MODIFY | IN_CLOSE_WRITE);
    f = open("e2/x", O_WRONLY | O_CREAT, 0644);
    write(f, "1", 1);
    unlink("e2/x");
    write(f, "2", 1);
    close(f);
    dump("without IN_EXCL_UNLINK", fd);
    return 0;
}
