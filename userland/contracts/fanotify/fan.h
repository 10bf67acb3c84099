/* Shared by the fanotify tests: the constants musl's header lacks, event
 * masks by name, and reading the queued events. */
#include "../common.h"
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#ifndef FAN_MARK_EVICTABLE
#define FAN_MARK_EVICTABLE 0x00000200
#endif
#ifndef FAN_MARK_IGNORE
#define FAN_MARK_IGNORE 0x00000400
#endif
#ifndef FAN_REPORT_TARGET_FID
#define FAN_REPORT_TARGET_FID 0x00001000
#endif
#ifndef FAN_REPORT_PIDFD
#define FAN_REPORT_PIDFD 0x00000080
#endif
#ifndef FAN_RENAME
#define FAN_RENAME 0x10000000
#endif
#ifndef FAN_FS_ERROR
#define FAN_FS_ERROR 0x00008000
#endif

static const char *fan_mask(uint64_t m) __attribute__((unused));
static const char *fan_mask(uint64_t m)
{
    static char buf[512];
    static const struct { uint64_t bit; const char *name; } names[] = {
        {FAN_ACCESS, "ACCESS"}, {FAN_MODIFY, "MODIFY"}, {FAN_ATTRIB, "ATTRIB"},
        {FAN_CLOSE_WRITE, "CLOSE_WRITE"}, {FAN_CLOSE_NOWRITE, "CLOSE_NOWRITE"},
        {FAN_OPEN, "OPEN"}, {FAN_MOVED_FROM, "MOVED_FROM"}, {FAN_MOVED_TO, "MOVED_TO"},
        {FAN_CREATE, "CREATE"}, {FAN_DELETE, "DELETE"}, {FAN_DELETE_SELF, "DELETE_SELF"},
        {FAN_MOVE_SELF, "MOVE_SELF"}, {FAN_OPEN_EXEC, "OPEN_EXEC"}, {FAN_Q_OVERFLOW, "Q_OVERFLOW"},
        {FAN_OPEN_PERM, "OPEN_PERM"}, {FAN_ACCESS_PERM, "ACCESS_PERM"},
        {FAN_OPEN_EXEC_PERM, "OPEN_EXEC_PERM"}, {FAN_ONDIR, "ONDIR"},
        {FAN_EVENT_ON_CHILD, "EVENT_ON_CHILD"},
    };
    buf[0] = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (m & names[i].bit) {
            if (buf[0])
                strcat(buf, "|");
            strcat(buf, names[i].name);
            m &= ~names[i].bit;
        }
    if (m)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "|0x%llx", (unsigned long long)m);
    return buf[0] ? buf : "0";
}

/* What an event's descriptor is: which of the named files (by inode), or
 * "none" (FAN_NOFD). */
static const char *fd_names[8] __attribute__((unused));
static const char *fd_what(int fd) __attribute__((unused));
static const char *fd_what(int fd)
{
    static char buf[64];
    struct stat a, b;
    if (fd == FAN_NOFD)
        return "none";
    if (fd < 0) {
        snprintf(buf, sizeof buf, "error %s", errname(-fd));
        return buf;
    }
    if (fstat(fd, &a) < 0)
        return "bad fd";
    for (int i = 0; i < 8 && fd_names[i]; i++)
        if (stat(fd_names[i], &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
            return fd_names[i];
    return "other";
}

/* Reads and prints every queued event (fan must be non-blocking), closing
 * their descriptors; pids print as "self", "child" or "other". */
static pid_t fan_child __attribute__((unused));
static int fan_dump(const char *label, int fan) __attribute__((unused));
static int fan_dump(const char *label, int fan)
{
    char buf[4096] __attribute__((aligned(8)));
    int count = 0;
    out("-- %s", label);
    for (;;) {
        ssize_t n = read(fan, buf, sizeof buf);
        if (n < 0) {
            if (errno != EAGAIN)
                out("read: %s", errname(errno));
            break;
        }
        struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
        for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
            const char *who = m->pid == getpid() ? "self" : m->pid == fan_child && fan_child ? "child" : m->pid == 0 ? "0" : "other";
            out("%s fd=%s pid=%s len=%u vers=%d mlen=%d", fan_mask(m->mask), fd_what(m->fd), who,
                m->event_len, m->vers, m->metadata_len);
            if (m->fd >= 0)
                close(m->fd);
            count++;
        }
    }
    return count;
}
