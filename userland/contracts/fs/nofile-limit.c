/* RLIMIT_NOFILE above the default 1024 is honoured: fds up to the new
 * soft limit open, the next is EMFILE; F_DUPFD at or past the limit is
 * EINVAL, dup2 to it EBADF; a hard limit past nr_open is EPERM. */
#include "common.h"
#include <sys/resource.h>

int main(void)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    out("default: soft %ld hard %ld", (long)rl.rlim_cur, (long)rl.rlim_max);
    rl.rlim_cur = 2064;
    out("raise soft to 2064: %s", setrlimit(RLIMIT_NOFILE, &rl) ? errname(errno) : "ok");
    int last = -1, count = 0;
    for (;;) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0) {
            out("stopped after %d more fds: %s", count, errname(errno));
            break;
        }
        last = fd;
        count++;
    }
    out("highest fd: %d", last);
    out("F_DUPFD from 2064: %s", fcntl(0, F_DUPFD, 2064) < 0 ? errname(errno) : "ok");
    close(1500);
    out("F_DUPFD from 1400 finds: %d", fcntl(0, F_DUPFD, 1400));
    out("dup2 to 2064: %s", dup2(0, 2064) < 0 ? errname(errno) : "ok");
    for (int fd = 3; fd <= last; fd++)
        close(fd);
    struct rlimit big = { 1 << 20, (1 << 20) + 1 };
    out("hard past nr_open: %s", setrlimit(RLIMIT_NOFILE, &big) ? errname(errno) : "ok");
    big.rlim_max = 1 << 20;
    out("hard at nr_open: %s", setrlimit(RLIMIT_NOFILE, &big) ? errname(errno) : "ok");
    return 0;
}
