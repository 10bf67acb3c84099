/* /proc/sys/kernel/random: boot_id is one random UUID for the whole boot
 * (systemd reads it before every service with PrivateTmp= to name its
 * directories, and journald marks entries with it), uuid a new one at
 * every read; both are version 4, variant 1, lowercase, with a newline.
 * entropy_avail and poolsize are 256 on Linux 6.1. */
#include "../common.h"

static int read_text(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    buf[n] = 0;
    return (int)n;
}

static int is_uuid(const char *s)
{
    if (strlen(s) != 37 || s[36] != '\n')
        return 0;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return 0;
        } else if (!strchr("0123456789abcdef", s[i])) {
            return 0;
        }
    }
    return s[14] == '4' && strchr("89ab", s[19]) != NULL;
}

static void mode_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        out("stat %s: %s", path, errname(errno));
    else
        out("%s: mode %o, uid %d", path, st.st_mode & 07777, (int)st.st_uid);
}

int main(void)
{
    char a[128], b[128];
    const char *names[] = {"boot_id", "uuid"};
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "/proc/sys/kernel/random/%s", names[i]);
        int n1 = read_text(path, a, sizeof a);
        int n2 = read_text(path, b, sizeof b);
        if (n1 < 0 || n2 < 0) {
            out("read %s: %s", names[i], errname(n1 < 0 ? -n1 : -n2));
            continue;
        }
        out("%s: %d bytes, a uuid: %s, again: %s", names[i], n1, is_uuid(a) ? "yes" : "no",
            strcmp(a, b) == 0 ? "same" : "different");
        mode_of(path);
    }
    const char *figures[] = {"entropy_avail", "poolsize"};
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "/proc/sys/kernel/random/%s", figures[i]);
        int n = read_text(path, a, sizeof a);
        if (n < 0)
            out("read %s: %s", figures[i], errname(-n));
        else
            out("%s: %s", figures[i], strtok(a, "\n"));
    }
    mode_of("/proc/sys/kernel/random");
    return 0;
}
