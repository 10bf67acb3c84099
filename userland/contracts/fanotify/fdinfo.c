/* /proc/PID/fdinfo of a fanotify group: the group's flags and
 * event_f_flags, then one line per mark (newest first) with its type,
 * flags and masks; and the /proc/sys/fs/fanotify limits. */
#include "fan.h"

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

/* Prints the fanotify lines of fd's fdinfo, with the inode number
 * checked against `ino` and device and handle bytes left out. */
static void show_fdinfo(int fd, ino_t ino)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    int f = open(path, O_RDONLY);
    ssize_t n = read(f, buf, sizeof buf - 1);
    close(f);
    buf[n > 0 ? n : 0] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "fanotify", 8) != 0) {
            if (!strncmp(line, "flags:", 6))
                out("%s", line);
            continue;
        }
        char copy[512], *w = copy;
        copy[0] = 0;
        for (char *field = strtok_r(line, " ", &line); field; field = strtok_r(NULL, " ", &line)) {
            unsigned long v;
            if (sscanf(field, "ino:%lx", &v) == 1)
                w += sprintf(w, "ino:%s ", v == ino ? "right" : "wrong");
            else if (!strncmp(field, "sdev:", 5))
                w += sprintf(w, "sdev:? ");
            else if (!strncmp(field, "mnt_id:", 7))
                w += sprintf(w, "mnt_id:? ");
            else if (!strncmp(field, "f_handle:", 9))
                w += sprintf(w, "f_handle:? ");
            else
                w += sprintf(w, "%s ", field);
        }
        out("%s", copy);
    }
}

int main(void)
{
    put_file("file", "x");
    mkdir("dir", 0755);
    struct stat st;
    stat("file", &st);
    ino_t file_ino = st.st_ino;
    stat("dir", &st);
    ino_t dir_ino = st.st_ino;

    int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE, O_RDWR | O_APPEND);
    check("init", fan);
    out("-- no marks");
    show_fdinfo(fan, 0);
    check("file", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_WRITE, AT_FDCWD, "file"));
    out("-- one file mark");
    show_fdinfo(fan, file_ino);
    check("file ignore", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY, FAN_ACCESS, AT_FDCWD, "file"));
    check("dir", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR | FAN_EVENT_ON_CHILD, AT_FDCWD, "dir"));
    out("-- dir then file");
    show_fdinfo(fan, dir_ino);
    check("mount", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ACCESS | FAN_EVENT_ON_CHILD, AT_FDCWD, "."));
    check("filesystem", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_MODIFY, AT_FDCWD, "."));
    check("remove dir", fanotify_mark(fan, FAN_MARK_REMOVE, FAN_OPEN_PERM | FAN_ONDIR | FAN_EVENT_ON_CHILD, AT_FDCWD, "dir"));
    out("-- filesystem, mount, file");
    show_fdinfo(fan, file_ino);
    close(fan);
    fan = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
    out("-- a plain group");
    show_fdinfo(fan, 0);

    show_file("/proc/sys/fs/fanotify/max_queued_events");
    show_file("/proc/sys/fs/fanotify/max_user_groups");
    show_file("/proc/sys/fs/fanotify/max_user_marks");
    struct stat s;
    stat("/proc/sys/fs/fanotify/max_user_marks", &s);
    out("mode %o", s.st_mode & 07777);
    int fd = open("/proc/sys/fs/fanotify/max_user_groups", O_WRONLY);
    ssize_t w = write(fd, "-1\n", 3);
    out("write -1: %s", w < 0 ? errname(errno) : "ok");
    close(fd);
    return 0;
}
