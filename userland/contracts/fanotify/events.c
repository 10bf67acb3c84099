/* The events of a descriptor-reporting group: FAN_OPEN, FAN_ACCESS,
 * FAN_MODIFY, FAN_CLOSE_WRITE and FAN_CLOSE_NOWRITE, merged into one
 * event per file and process while queued; the metadata (version,
 * lengths, the pid, a new descriptor for the file opened with
 * event_f_flags); directory marks with FAN_EVENT_ON_CHILD and FAN_ONDIR;
 * the descriptor a listener gets reports nothing itself. */
#include "fan.h"

int main(void)
{
    put_file("a", "hello");
    put_file("b", "world");
    mkdir("dir", 0755);
    put_file("dir/c", "child");
    mkdir("dir/sub", 0755);
    fd_names[0] = "a";
    fd_names[1] = "b";
    fd_names[2] = "dir";
    fd_names[3] = "dir/c";
    fd_names[4] = "dir/sub";
    char buf[64];

    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDWR | O_CLOEXEC);
    check("init", fan);
    check("mark a", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS | FAN_MODIFY | FAN_CLOSE, AT_FDCWD, "a"));
    int fd = open("a", O_RDWR);
    read(fd, buf, 2);
    write(fd, "xy", 2);
    read(fd, buf, 2);
    close(fd);
    fd_names[5] = 0;
    /* One merged event; its descriptor's flags. */
    {
        char ebuf[256] __attribute__((aligned(8)));
        ssize_t n = read(fan, ebuf, sizeof ebuf);
        out("read: %zd", n);
        struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)ebuf;
        out("mask %s, vers %s, metadata_len %u, event_len %u, pid self %s, fd is a: %s", fan_mask(m->mask),
            m->vers == FANOTIFY_METADATA_VERSION ? "current" : "other", m->metadata_len, m->event_len, yesno(m->pid == getpid()),
            fd_what(m->fd));
        int fl = fcntl(m->fd, F_GETFL);
        out("event fd: rdwr %s, cloexec %s, append %s", yesno((fl & O_ACCMODE) == O_RDWR), yesno(fcntl(m->fd, F_GETFD) & FD_CLOEXEC), yesno(fl & O_APPEND));
        /* Using it reports nothing. */
        lseek(m->fd, 0, SEEK_SET);
        n = read(m->fd, buf, 5);
        out("read through it: %zd '%.5s'", n, buf);
        n = pwrite(m->fd, "H", 1, 0);
        out("write through it: %zd", n);
        close(m->fd);
        fan_dump("after using the event's descriptor", fan);
    }

    /* Separate events per process; none for an unmarked file. */
    fd = open("a", O_RDONLY);
    read(fd, buf, 1);
    pid_t pid = fork();
    if (pid == 0) {
        int c = open("a", O_RDONLY);
        read(c, buf, 1);
        close(c);
        _exit(0);
    }
    fan_child = pid;
    reap("child", pid);
    close(fd);
    close(open("b", O_RDONLY));
    fan_dump("self, then child (self's close merges into its first event)", fan);

    /* Without FAN_MODIFY in the mark, a write reports only the opens/closes asked for. */
    check("remove FAN_ACCESS|FAN_MODIFY", fanotify_mark(fan, FAN_MARK_REMOVE, FAN_ACCESS | FAN_MODIFY, AT_FDCWD, "a"));
    fd = open("a", O_WRONLY);
    write(fd, "z", 1);
    close(fd);
    fan_dump("open for writing", fan);
    fd = open("a", O_PATH);
    close(fd);
    fan_dump("O_PATH open and close", fan);

    /* A directory mark: children's events with FAN_EVENT_ON_CHILD, the
     * directory's own with FAN_ONDIR. */
    check("mark dir (children)", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, "dir"));
    close(open("dir/c", O_RDONLY));
    close(open("dir", O_RDONLY | O_DIRECTORY));
    close(open("dir/sub", O_RDONLY | O_DIRECTORY));
    fan_dump("child file, dir itself, subdir (no FAN_ONDIR)", fan);
    check("add FAN_ONDIR", fanotify_mark(fan, FAN_MARK_ADD, FAN_ONDIR, AT_FDCWD, "dir"));
    close(open("dir", O_RDONLY | O_DIRECTORY));
    close(open("dir/sub", O_RDONLY | O_DIRECTORY));
    fan_dump("dir itself, subdir (FAN_ONDIR)", fan);
    check("remove FAN_EVENT_ON_CHILD", fanotify_mark(fan, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, AT_FDCWD, "dir"));
    close(open("dir/c", O_RDONLY));
    close(open("dir", O_RDONLY | O_DIRECTORY));
    fan_dump("child file (no FAN_EVENT_ON_CHILD), dir", fan);

    /* getdents is an access of the directory. */
    check("FAN_ACCESS|FAN_ONDIR on dir", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, AT_FDCWD, "dir"));
    fd = open("dir", O_RDONLY | O_DIRECTORY);
    char dents[1024];
    syscall(SYS_getdents64, fd, dents, sizeof dents);
    close(fd);
    fan_dump("getdents", fan);

    /* Ignore masks: FAN_MARK_IGNORED_MASK on the file silences an event a
     * directory mark would report; a modification clears it unless it
     * survives modification. */
    check("dir: FAN_ACCESS|FAN_EVENT_ON_CHILD", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, "dir"));
    check("dir/c: ignore FAN_ACCESS", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_ACCESS, AT_FDCWD, "dir/c"));
    fd = open("dir/c", O_RDONLY);
    read(fd, buf, 1);
    close(fd);
    fan_dump("read of dir/c (ignored)", fan);
    fd = open("dir/c", O_RDWR);
    write(fd, "w", 1);
    read(fd, buf, 1);
    close(fd);
    fan_dump("write then read of dir/c (the ignore mask went)", fan);
    check("dir/c: ignore FAN_ACCESS, surviving", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY, FAN_ACCESS, AT_FDCWD, "dir/c"));
    fd = open("dir/c", O_RDWR);
    write(fd, "w", 1);
    read(fd, buf, 1);
    close(fd);
    fan_dump("write then read of dir/c (still ignored)", fan);

    /* Close of the group: its marks go. */
    close(fan);
    fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    close(open("a", O_RDONLY));
    out("new group hears nothing: %s", yesno(fan_dump("new group", fan) == 0));
    return 0;
}
