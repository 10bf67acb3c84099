/* sendfile's count checks and that a long sendfile can be ended: a count
 * of ~0 is EINVAL (Linux's rw_verify_area: a negative ssize_t), a huge
 * positive count is cut to MAX_RW_COUNT, a negative offset is EINVAL, and a
 * child copying /dev/zero to /dev/null without end dies at SIGKILL. */
#include <sys/sendfile.h>
#include "common.h"

int main(void)
{
    int zero = open("/dev/zero", O_RDONLY);
    int null = open("/dev/null", O_WRONLY);
    errno = 0;
    long r = syscall(SYS_sendfile, null, zero, NULL, ~0UL);
    out("count ~0: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_sendfile, null, zero, NULL, 1UL << 63);
    out("count 1<<63: %s", r < 0 ? errname(errno) : "ok");
    off_t off = -1;
    r = syscall(SYS_sendfile, null, zero, &off, 16UL);
    out("negative offset: %s", r < 0 ? errname(errno) : "ok");
    int f = open("data", O_RDWR | O_CREAT, 0644);
    write(f, "abcdefgh", 8);
    off = 0x7ffffffffffffff0LL;
    r = syscall(SYS_sendfile, null, f, &off, 64UL);
    out("offset + count past the largest offset: %s", r < 0 ? errname(errno) : "ok");
    off = 2;
    r = syscall(SYS_sendfile, null, f, &off, 0x7fffffffffffffffUL);
    out("huge count from offset 2: %s, offset now %ld", r < 0 ? errname(errno) : "ok", (long)off);
    r = syscall(SYS_sendfile, null, f, (void *)8, 4UL);
    out("bad offset pointer: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_sendfile, 1000, f, NULL, 4UL);
    out("bad output fd: %s", r < 0 ? errname(errno) : "ok");

    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            /* Without end: each call asks for the largest count. */
            for (;;)
                syscall(SYS_sendfile, null, zero, NULL, round == 0 ? 0x7fffffffffffffffUL : 0x7ffff000UL);
        }
        msleep(200);
        kill(pid, round == 0 ? SIGKILL : SIGTERM);
        reap(round == 0 ? "endless sendfile, SIGKILL" : "endless sendfile, SIGTERM", pid);
    }
    return 0;
}
