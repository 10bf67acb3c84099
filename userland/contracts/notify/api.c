/* inotify_init/inotify_init1 and the watch calls' arguments: flags
 * (IN_NONBLOCK, IN_CLOEXEC, EINVAL for others), the anon inode link,
 * watch descriptors (one per inode, reused for the same inode, growing),
 * ENOENT, EINVAL for an empty mask and for a file that is not an
 * inotify instance, EBADF, IN_ONLYDIR (ENOTDIR), IN_DONT_FOLLOW,
 * IN_MASK_CREATE (EEXIST; EINVAL with IN_MASK_ADD), IN_MASK_ADD merging,
 * inotify_rm_watch (IN_IGNORED, then EINVAL), a too small read buffer
 * (EINVAL), FIONREAD, poll and the /proc/sys/fs/inotify limits. */
#include "inotify.h"

static void show_file(const char *path)
{
    char buf[64] = {0};
    int fd = open(path, O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    out("%s: %s", path, n < 0 ? errname(errno) : buf);
}

int main(void)
{
    int fd = inotify_init();
    check("inotify_init", fd);
    out("flags: nonblock %s, cloexec %s", yesno(fcntl(fd, F_GETFL) & O_NONBLOCK), yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    out("accmode rdonly: %s", yesno((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY));
    char link[64], target[64] = {0};
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    readlink(link, target, sizeof target - 1);
    out("link: %s", target);
    close(fd);
    fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    out("init1 flags: nonblock %s, cloexec %s", yesno(fcntl(fd, F_GETFL) & O_NONBLOCK), yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    check("init1 flag 1", inotify_init1(1));
    check("init1 O_RDWR", inotify_init1(O_RDWR));

    put_file("file", "x");
    mkdir("dir", 0755);
    symlink("file", "link");
    int w1 = inotify_add_watch(fd, "file", IN_MODIFY);
    int w2 = inotify_add_watch(fd, "dir", IN_CREATE);
    out("first wds: %d %d", w1, w2);
    show("same file again", inotify_add_watch(fd, "file", IN_ATTRIB));
    show("through the symlink", inotify_add_watch(fd, "link", IN_ATTRIB));
    int w3 = inotify_add_watch(fd, "link", IN_ATTRIB | IN_DONT_FOLLOW);
    out("symlink itself is new: %s", yesno(w3 > w2));
    check("missing", inotify_add_watch(fd, "missing", IN_MODIFY));
    check("mask 0", inotify_add_watch(fd, "file", 0));
    check("mask IN_ONESHOT only", inotify_add_watch(fd, "file", IN_ONESHOT));
    check("IN_ONLYDIR on a file", inotify_add_watch(fd, "file", IN_MODIFY | IN_ONLYDIR));
    show("IN_ONLYDIR on a dir", inotify_add_watch(fd, "dir", IN_CREATE | IN_ONLYDIR));
    check("IN_MASK_CREATE on a watched file", inotify_add_watch(fd, "file", IN_MODIFY | IN_MASK_CREATE));
    check("IN_MASK_CREATE|IN_MASK_ADD", inotify_add_watch(fd, "file", IN_MODIFY | IN_MASK_CREATE | IN_MASK_ADD));
    int regular = open("file", O_RDONLY);
    check("not an inotify fd", inotify_add_watch(regular, "file", IN_MODIFY));
    check("bad fd", inotify_add_watch(99, "file", IN_MODIFY));
    check("bad path pointer", inotify_add_watch(fd, (const char *)8, IN_MODIFY));
    check("rm_watch on a regular fd", inotify_rm_watch(regular, w1));
    close(regular);

    /* The mask replaces the old one unless IN_MASK_ADD. */
    inotify_add_watch(fd, "file", IN_OPEN);
    put_file("file", "y");
    dump("replaced mask: only OPEN", fd);
    inotify_add_watch(fd, "file", IN_CLOSE_WRITE | IN_MASK_ADD);
    put_file("file", "z");
    dump("added mask: OPEN and CLOSE_WRITE", fd);

    check("rm_watch", inotify_rm_watch(fd, w1));
    dump("after rm_watch", fd);
    check("rm_watch again", inotify_rm_watch(fd, w1));
    check("rm_watch -1", inotify_rm_watch(fd, -1));
    check("rm_watch 1000", inotify_rm_watch(fd, 1000));
    int w4 = inotify_add_watch(fd, "file", IN_MODIFY);
    out("new wd after removal is larger: %s", yesno(w4 > w3));

    /* Buffer sizes, FIONREAD, poll. */
    put_file("file", "w");
    int avail = -1;
    ioctl(fd, FIONREAD, &avail);
    out("FIONREAD: %d", avail);
    struct pollfd pfd = {fd, POLLIN, 0};
    show("poll ready", poll(&pfd, 1, 0));
    out("revents %x", pfd.revents);
    char small[sizeof(struct inotify_event)];
    check("read into 15 bytes", read(fd, small, sizeof small - 1));
    show("read into 16 bytes", read(fd, small, sizeof small));
    show("read into 0 bytes", read(fd, small, 0));
    dump("left", fd);
    pfd.revents = 0;
    show("poll empty", poll(&pfd, 1, 0));
    check("read empty nonblocking", read(fd, small, sizeof small));
    close(fd);

    show_file("/proc/sys/fs/inotify/max_queued_events");
    show_file("/proc/sys/fs/inotify/max_user_instances");
    show_file("/proc/sys/fs/inotify/max_user_watches");
    return 0;
}
