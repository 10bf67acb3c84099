/* The events of a watched directory and of its files: CREATE, OPEN,
 * MODIFY, ACCESS, CLOSE_WRITE/CLOSE_NOWRITE, ATTRIB (chmod, link count),
 * MOVED_FROM/MOVED_TO with one cookie, DELETE, ISDIR for directories,
 * truncation, O_TRUNC; identical events merged while unread. */
#include "inotify.h"

int main(void)
{
    mkdir("w", 0755);
    int fd = inotify_init1(IN_NONBLOCK);
    int wd = inotify_add_watch(fd, "w", IN_ALL_EVENTS);
    out("wd %d", wd);
    int f = open("w/a", O_WRONLY | O_CREAT, 0644);
    dump("create", fd);
    write(f, "12345", 5);
    dump("write", fd);
    write(f, "1", 1);
    write(f, "2", 1);
    dump("two writes merged", fd);
    close(f);
    dump("close", fd);
    f = open("w/a", O_RDONLY);
    char b[8];
    read(f, b, 2);
    read(f, b, 2);
    close(f);
    dump("open, two reads, close", fd);
    chmod("w/a", 0600);
    dump("chmod", fd);
    truncate("w/a", 2);
    dump("truncate", fd);
    f = open("w/a", O_WRONLY | O_TRUNC);
    close(f);
    dump("O_TRUNC", fd);
    link("w/a", "w/b");
    dump("link", fd);
    rename("w/b", "w/c");
    dump("rename", fd);
    unlink("w/c");
    dump("unlink", fd);
    mkdir("w/sub", 0755);
    dump("mkdir", fd);
    rename("w/sub", "w/sub2");
    dump("rename dir", fd);
    rmdir("w/sub2");
    dump("rmdir", fd);
    mkdir("other", 0755);
    rename("w/a", "other/a");
    dump("moved out", fd);
    rename("other/a", "w/a2");
    dump("moved in", fd);
    symlink("a2", "w/s");
    dump("symlink", fd);
    mknod("w/fifo", S_IFIFO | 0644, 0);
    dump("mkfifo", fd);
    int wo = inotify_add_watch(fd, "other", IN_MOVE);
    put_file("w/m", "m");
    dump("put_file", fd);
    rename("w/m", "other/m");
    dump("moved between two watched dirs", fd);
    (void)wo;
    return 0;
}
