/* One MiB through a TCP connection from a forked writer to a reader that
 * reads in odd-sized pieces: every byte arrives, in order (checksum), and
 * the writer's close ends it with EOF. */
#include "inet.h"

#define TOTAL (1 << 20)

static unsigned char pattern(size_t i) { return (unsigned char)((i * 131u + (i >> 9)) & 0xff); }

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    pid_t pid = fork();
    if (pid == 0) {
        int c = tcp_connect(port);
        static unsigned char buf[TOTAL];
        for (size_t i = 0; i < TOTAL; i++)
            buf[i] = pattern(i);
        size_t off = 0;
        while (off < TOTAL) {
            ssize_t w = write(c, buf + off, TOTAL - off > 100000 ? 100000 : TOTAL - off);
            if (w <= 0) {
                out("write failed: %s", errname(errno));
                _exit(1);
            }
            off += w;
        }
        close(c);
        _exit(0);
    }
    int s = accept(l, NULL, NULL);
    static unsigned char buf[7777];
    size_t total = 0;
    unsigned long sum = 0;
    int ordered = 1;
    for (;;) {
        ssize_t n = read(s, buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != pattern(total + i))
                ordered = 0;
            sum = sum * 31 + buf[i];
        }
        total += n;
    }
    out("received %zu bytes, in order: %s, checksum %lx", total, yesno(ordered), sum);
    reap("writer", pid);
    return 0;
}
