/* Shared by the notify tests: print queued inotify events by name. */
#include "../common.h"
#include <poll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>

static const char *mask_names(uint32_t m)
{
    static char buf[512];
    static const struct { uint32_t bit; const char *name; } names[] = {
        {IN_ACCESS, "ACCESS"}, {IN_MODIFY, "MODIFY"}, {IN_ATTRIB, "ATTRIB"},
        {IN_CLOSE_WRITE, "CLOSE_WRITE"}, {IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"},
        {IN_OPEN, "OPEN"}, {IN_MOVED_FROM, "MOVED_FROM"}, {IN_MOVED_TO, "MOVED_TO"},
        {IN_CREATE, "CREATE"}, {IN_DELETE, "DELETE"}, {IN_DELETE_SELF, "DELETE_SELF"},
        {IN_MOVE_SELF, "MOVE_SELF"}, {IN_UNMOUNT, "UNMOUNT"}, {IN_Q_OVERFLOW, "Q_OVERFLOW"},
        {IN_IGNORED, "IGNORED"}, {IN_ISDIR, "ISDIR"},
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
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "|0x%x", m);
    return buf;
}

static uint32_t last_cookie;

/* Reads and prints every queued event (the fd must be non-blocking);
 * cookies print as "cookie" plus whether it equals the previous one. */
static int dump(const char *label, int fd)
{
    char buf[8192] __attribute__((aligned(8)));
    int count = 0;
    out("-- %s", label);
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno != EAGAIN)
                out("read: %s", errname(errno));
            break;
        }
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            char cookie[48] = "";
            if (e->cookie) {
                snprintf(cookie, sizeof cookie, " cookie %s", e->cookie == last_cookie ? "same" : "new");
                last_cookie = e->cookie;
            }
            out("wd %d %s%s%s%s", e->wd, mask_names(e->mask), cookie, e->len ? " name " : "", e->len ? e->name : "");
            p += sizeof *e + e->len;
            count++;
        }
    }
    return count;
}
