/* close_range closes a range of fds (gaps allowed), ~0U means "to the
 * end", CLOSE_RANGE_CLOEXEC marks instead of closing, first > last is
 * EINVAL. */
#include "common.h"

static void state(void)
{
    char line[128] = "";
    for (int fd = 3; fd < 12; fd++) {
        int f = fcntl(fd, F_GETFD);
        strcat(line, f < 0 ? " -" : (f & FD_CLOEXEC) ? " c" : " o");
    }
    out("fds 3..11:%s", line);
}

int main(void)
{
    for (int i = 0; i < 9; i++)
        open("/", O_RDONLY);
    close(6);
    state();
    check("close_range(4, 5)", syscall(SYS_close_range, 4, 5, 0));
    state();
    check("close_range(8, 9, CLOEXEC)", syscall(SYS_close_range, 8, 9, CLOSE_RANGE_CLOEXEC));
    state();
    check("close_range(10, ~0U)", syscall(SYS_close_range, 10, ~0U, 0));
    state();
    check("close_range(5, 3)", syscall(SYS_close_range, 5, 3, 0));
    check("close_range bad flags", syscall(SYS_close_range, 3, 4, 0x80));
    check("close_range(500, 600) nothing open", syscall(SYS_close_range, 500, 600, 0));
    state();
    return 0;
}
