/* sendfile's allowed pairs in Linux 6.1: a regular file into a regular
 * file, a pipe, a socket or /dev/null; a pipe as input is EINVAL (the
 * input must be a regular file or block device), an offset on a pipe
 * input is ESPIPE; an eventfd takes no spliced data either way (EINVAL),
 * and the file's position does not move. */
#include "common.h"
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

static void drain(const char *label, int fd)
{
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n < 0 ? 0 : n] = 0;
    out("%s: %ld '%s'", label, (long)n, buf);
}

int main(void)
{
    put_file("src", "0123456789");
    int in = open("src", O_RDONLY);
    int o = open("dst", O_RDWR | O_CREAT, 0644);
    int p[2], s[2];
    pipe(p);
    socketpair(AF_UNIX, SOCK_STREAM, 0, s);
    show("file to file", sendfile(o, in, NULL, 4));
    show("file to pipe", sendfile(p[1], in, NULL, 3));
    drain("pipe", p[0]);
    show("file to socket", sendfile(s[0], in, NULL, 3));
    drain("socket", s[1]);
    write(p[1], "abc", 3);
    show("pipe to file", sendfile(o, p[0], NULL, 3));
    write(p[1], "def", 3);
    int q[2];
    pipe(q);
    show("pipe to pipe", sendfile(q[1], p[0], NULL, 3));
    off_t off = 0;
    show("pipe with an offset", sendfile(o, p[0], &off, 3));
    write(s[1], "sock", 4);
    show("socket to file", sendfile(o, s[0], NULL, 4));
    show("write-only input", sendfile(o, o == 0 ? 0 : open("src", O_WRONLY), NULL, 4));
    int e = eventfd(1, 0);
    show("file at its end to eventfd", sendfile(e, in, NULL, 8));
    lseek(in, 2, SEEK_SET);
    show("file to eventfd", sendfile(e, in, NULL, 8));
    out("position: %ld", (long)lseek(in, 0, SEEK_CUR));
    off_t from = 1;
    show("file at offset 1 to eventfd", sendfile(e, in, &from, 8));
    out("offset: %ld", (long)from);
    show("nothing to eventfd", sendfile(e, in, NULL, 0));
    show("eventfd to file", sendfile(o, e, NULL, 8));
    show("eventfd to eventfd", sendfile(e, e, NULL, 8));
    int null = open("/dev/null", O_WRONLY);
    show("file to /dev/null", sendfile(null, in, NULL, 2));
    out("position: %ld", (long)lseek(in, 0, SEEK_CUR));
    return 0;
}
