/* /proc/net shows the reader's network namespace: in a new one,
 * /proc/net/dev has its header and lo with every counter at 0, and
 * /proc/net/if_inet6 is empty until lo is up, then lists ::1 on lo. */
#include "netns.h"

static void cat(const char *path)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    ssize_t n = read_full(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = 0;
    out("%s:", path);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        out("|%s", line);
}

int main(void)
{
    check("unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
    cat("/proc/net/dev");
    cat("/proc/net/if_inet6");
    out("RTM_NEWLINK lo up: %s", nlerr(link_set_up(1, 1)));
    cat("/proc/net/if_inet6");
    return 0;
}
