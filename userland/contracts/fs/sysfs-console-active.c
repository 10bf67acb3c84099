/* /sys/class/tty/console/active names the console devices (both kernels
 * boot with the console on the first serial port): systemd's getty
 * generator starts a login prompt on each. */
#include <sys/mount.h>
#include "common.h"

int main(void)
{
    mkdir("s", 0755);
    if (mount("sysfs", "s", "sysfs", 0, NULL) < 0) {
        out("mount sysfs: %s", errname(errno));
        return 0;
    }
    char buf[128];
    int fd = open("s/class/tty/console/active", O_RDONLY);
    if (fd < 0) {
        out("open: %s", errname(errno));
    } else {
        ssize_t n = read_full(fd, buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = 0;
        out("active: %s", buf);
        struct stat st;
        fstat(fd, &st);
        out("mode %o", st.st_mode & 07777);
        close(fd);
    }
    umount("s");
    return 0;
}
