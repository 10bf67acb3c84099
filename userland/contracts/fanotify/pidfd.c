/* FAN_REPORT_PIDFD: each event carries a struct fanotify_event_info_pidfd
 * after the metadata: a pidfd for the process that caused it (close-on-
 * exec), or FAN_NOPIDFD once that process is gone. */
#include "fan.h"
#include <sys/syscall.h>

#ifndef FAN_EVENT_INFO_TYPE_PIDFD
#define FAN_EVENT_INFO_TYPE_PIDFD 4
#endif

static void dump(const char *label, int fan)
{
    char buf[1024] __attribute__((aligned(8)));
    out("-- %s", label);
    ssize_t n = read(fan, buf, sizeof buf);
    if (n < 0) {
        out("read: %s", errname(errno));
        return;
    }
    struct fanotify_event_metadata *m = (void *)buf;
    for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
        out("%s pid=%s len=%u", fan_mask(m->mask), m->pid == getpid() ? "self" : m->pid == fan_child ? "child" : "other", m->event_len);
        if (m->event_len < sizeof *m + 8)
            continue;
        unsigned char *info = (unsigned char *)(m + 1);
        int pidfd;
        memcpy(&pidfd, info + 4, 4);
        out("  info type %d len %d", info[0], info[2] | info[3] << 8);
        if (pidfd < 0) {
            out("  pidfd %d", pidfd);
        } else {
            out("  pidfd: cloexec %s, signal 0 -> %ld", yesno(fcntl(pidfd, F_GETFD) & FD_CLOEXEC),
                syscall(424 /* pidfd_send_signal */, pidfd, 0, NULL, 0));
            close(pidfd);
        }
        if (m->fd >= 0)
            close(m->fd);
    }
}

int main(void)
{
    put_file("a", "a");
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_REPORT_PIDFD, O_RDONLY);
    check("init", fan);
    check("mark a", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, AT_FDCWD, "a"));
    close(open("a", O_RDONLY));
    dump("self", fan);
    pid_t pid = fork();
    if (pid == 0) {
        close(open("a", O_RDONLY));
        _exit(0);
    }
    fan_child = pid;
    reap("child", pid);
    dump("a child, reaped", fan);
    char small[30];
    close(open("a", O_RDONLY));
    ssize_t n = read(fan, small, sizeof small);
    out("read of 30 bytes: %zd %s", n, n < 0 ? errname(errno) : "");
    return 0;
}
