/* Pipes are not seekable (ESPIPE for lseek/pread/pwrite); a writer blocks
 * when the pipe is full until the reader drains it; large transfers arrive
 * intact and in order; FIONREAD counts queued bytes. */
#include "common.h"
#include <sys/ioctl.h>

int main(void)
{
    int p[2];
    pipe(p);
    show("lseek", lseek(p[0], 0, SEEK_CUR));
    char c;
    show("pread", pread(p[0], &c, 1, 0));
    show("pwrite", pwrite(p[1], "x", 1, 0));
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        static unsigned char buf[1 << 20];
        for (unsigned i = 0; i < sizeof buf; i++)
            buf[i] = (unsigned char)(i * 31 + (i >> 8));
        ssize_t n = write(p[1], buf, sizeof buf); /* blocks many times */
        _exit(n == sizeof buf ? 0 : 1);
    }
    close(p[1]);
    msleep(50);
    static unsigned char got[1 << 20];
    ssize_t n = read_full(p[0], got, sizeof got);
    int ok = 1;
    for (unsigned i = 0; i < sizeof got; i++)
        if (got[i] != (unsigned char)(i * 31 + (i >> 8))) {
            ok = 0;
            break;
        }
    out("1 MiB through a 64 KiB pipe: %ld bytes, intact: %s", (long)n, yesno(ok));
    reap("writer (one write call)", pid);
    show("EOF", read(p[0], &c, 1));
    int q[2];
    pipe(q);
    write(q[1], "seven!!", 7);
    int avail = -1;
    check("ioctl FIONREAD", ioctl(q[0], FIONREAD, &avail));
    out("bytes available: %d", avail);
    return 0;
}
