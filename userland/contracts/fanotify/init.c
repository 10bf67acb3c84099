/* fanotify_init: its flags (FAN_CLOEXEC, FAN_NONBLOCK, the classes, the
 * limits, the reporting modes), event_f_flags, and the errors Linux 6.1
 * gives: EINVAL for unknown flags and bad combinations, EPERM without
 * CAP_SYS_ADMIN unless the group reports file handles. */
#include "fan.h"

static void try(const char *label, unsigned flags, unsigned ev)
{
    int fd = fanotify_init(flags, ev);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: ok", label);
    close(fd);
}

int main(void)
{
    int fd = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
    check("init", fd);
    out("flags: accmode rdwr %s, nonblock %s, cloexec %s", yesno((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR),
        yesno(fcntl(fd, F_GETFL) & O_NONBLOCK), yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    char link[64], target[64] = {0};
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    readlink(link, target, sizeof target - 1);
    out("link: %s", target);
    char buf[16];
    close(fd);
    fd = fanotify_init(FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);
    out("FAN_CLOEXEC|FAN_NONBLOCK: nonblock %s, cloexec %s", yesno(fcntl(fd, F_GETFL) & O_NONBLOCK), yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    ssize_t r = read(fd, buf, sizeof buf);
    out("read of an empty queue: %zd %s", r, r < 0 ? errname(errno) : "");
    r = write(fd, buf, 4);
    out("short write: %zd %s", r, r < 0 ? errname(errno) : "");
    out("lseek: %ld", (long)lseek(fd, 10, SEEK_SET));
    close(fd);

    try("FAN_CLASS_CONTENT", FAN_CLASS_CONTENT, O_RDONLY);
    try("FAN_CLASS_PRE_CONTENT", FAN_CLASS_PRE_CONTENT, O_RDONLY);
    try("both classes", FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT, O_RDONLY);
    try("FAN_UNLIMITED_QUEUE|FAN_UNLIMITED_MARKS", FAN_UNLIMITED_QUEUE | FAN_UNLIMITED_MARKS, O_RDONLY);
    try("FAN_ENABLE_AUDIT", FAN_ENABLE_AUDIT, O_RDONLY);
    try("FAN_REPORT_TID", FAN_REPORT_TID, O_RDONLY);
    try("FAN_REPORT_PIDFD", FAN_REPORT_PIDFD, O_RDONLY);
    try("FAN_REPORT_PIDFD|FAN_REPORT_TID", FAN_REPORT_PIDFD | FAN_REPORT_TID, O_RDONLY);
    try("FAN_REPORT_FID", FAN_REPORT_FID, O_RDONLY);
    try("FAN_REPORT_DIR_FID", FAN_REPORT_DIR_FID, O_RDONLY);
    try("FAN_REPORT_DFID_NAME", FAN_REPORT_DIR_FID | FAN_REPORT_NAME, O_RDONLY);
    try("FAN_REPORT_NAME alone", FAN_REPORT_NAME, O_RDONLY);
    try("FAN_REPORT_FID|FAN_REPORT_NAME", FAN_REPORT_FID | FAN_REPORT_NAME, O_RDONLY);
    try("FAN_REPORT_DFID_NAME_TARGET", FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID, O_RDONLY);
    try("FAN_REPORT_TARGET_FID without FID", FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_REPORT_TARGET_FID, O_RDONLY);
    try("FAN_REPORT_FID|FAN_CLASS_CONTENT", FAN_REPORT_FID | FAN_CLASS_CONTENT, O_RDONLY);
    try("unknown flag 0x2000", 0x2000, O_RDONLY);
    try("unknown flag 0x80000000", 0x80000000u, O_RDONLY);
    try("event_f_flags O_RDWR", 0, O_RDWR);
    try("event_f_flags O_WRONLY", 0, O_WRONLY);
    try("event_f_flags accmode 3", 0, 3);
    try("event_f_flags O_CLOEXEC|O_NONBLOCK|O_APPEND|O_NOATIME|O_LARGEFILE|O_SYNC", 0,
        O_CLOEXEC | O_NONBLOCK | O_APPEND | O_NOATIME | O_LARGEFILE | O_SYNC);
    try("event_f_flags O_CREAT", 0, O_CREAT);
    try("event_f_flags O_DIRECTORY", 0, O_DIRECTORY);
    try("event_f_flags O_PATH", 0, O_PATH);

    /* As uid 1000 without capabilities. */
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(99);
        try("uid 1000: FAN_CLASS_NOTIF", FAN_CLASS_NOTIF, O_RDONLY);
        try("uid 1000: FAN_REPORT_FID", FAN_REPORT_FID, O_RDONLY);
        try("uid 1000: FAN_REPORT_DFID_NAME|FAN_NONBLOCK", FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_NONBLOCK, O_RDONLY);
        try("uid 1000: FAN_REPORT_FID|FAN_UNLIMITED_QUEUE", FAN_REPORT_FID | FAN_UNLIMITED_QUEUE, O_RDONLY);
        try("uid 1000: FAN_REPORT_FID|FAN_CLASS_CONTENT", FAN_REPORT_FID | FAN_CLASS_CONTENT, O_RDONLY);
        try("uid 1000: FAN_REPORT_FID|FAN_REPORT_TID", FAN_REPORT_FID | FAN_REPORT_TID, O_RDONLY);
        try("uid 1000: FAN_REPORT_FID unknown flag", FAN_REPORT_FID | 0x2000, O_RDONLY);
        int g = fanotify_init(FAN_REPORT_FID, O_RDONLY);
        check("uid 1000: mount mark", fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, AT_FDCWD, "."));
        check("uid 1000: filesystem mark", fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, AT_FDCWD, "."));
        _exit(0);
    }
    reap("uid 1000", pid);

    /* max_user_groups counts the groups of a user. */
    int fds[200], n = 0;
    for (; n < 200; n++) {
        fds[n] = fanotify_init(0, O_RDONLY);
        if (fds[n] < 0)
            break;
    }
    out("groups made before failing: %d (%s)", n, n < 200 ? errname(errno) : "none");
    for (int i = 0; i < n; i++)
        close(fds[i]);
    fd = fanotify_init(0, O_RDONLY);
    out("after closing them: %s", fd >= 0 ? "ok" : errname(errno));
    return 0;
}
