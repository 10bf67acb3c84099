/* /proc/net/if_inet6 once lo is up: lo's ::1 with its index, prefix
 * length, scope (IPV6_ADDR_LOOPBACK) and flags (IFA_F_PERMANENT). Lines
 * of other interfaces are left out. */
#include "inet6.h"

int main(void)
{
    lo_up();
    int fd = open("/proc/net/if_inet6", O_RDONLY);
    check("open /proc/net/if_inet6", fd);
    char buf[4096];
    long n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, " lo"))
            out("%s", line);
    close(fd);
    return 0;
}
