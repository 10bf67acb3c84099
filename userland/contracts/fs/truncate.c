/* truncate/ftruncate: growing fills with zeros, shrinking discards, errors
 * for negative lengths, read-only fds and directories. */
#include "common.h"

int main(void)
{
    put_file("f", "abcdefgh");
    struct stat st;
    check("truncate to 3", truncate("f", 3));
    stat("f", &st);
    out("size: %ld", (long)st.st_size);
    check("truncate to 10000", truncate("f", 10000));
    stat("f", &st);
    out("size: %ld", (long)st.st_size);
    char buf[16];
    int fd = open("f", O_RDWR);
    pread(fd, buf, 6, 0);
    out("bytes 0-5: %c %c %c %d %d %d", buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
    pread(fd, buf, 1, 9999);
    out("last byte: %d", buf[0]);
    check("ftruncate to 1", ftruncate(fd, 1));
    fstat(fd, &st);
    out("size: %ld", (long)st.st_size);
    out("offset unchanged by ftruncate: %ld", (long)lseek(fd, 0, SEEK_CUR));
    show("ftruncate negative", ftruncate(fd, -1));
    show("truncate negative", truncate("f", -1));
    int ro = open("f", O_RDONLY);
    show("ftruncate on O_RDONLY fd", ftruncate(ro, 0));
    mkdir("d", 0755);
    show("truncate a directory", truncate("d", 0));
    show("truncate missing", truncate("none", 0));
    show("ftruncate bad fd", ftruncate(1000, 0));
    int p[2];
    pipe(p);
    show("ftruncate a pipe", ftruncate(p[1], 0));
    /* Shrink then grow again: the old data does not come back. */
    write(fd, "Z", 1);
    ftruncate(fd, 0);
    ftruncate(fd, 4);
    pread(fd, buf, 4, 0);
    out("after shrink+grow: %d %d %d %d", buf[0], buf[1], buf[2], buf[3]);
    return 0;
}
