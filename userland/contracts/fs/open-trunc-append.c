/* O_TRUNC empties a file on open for writing; O_APPEND makes every write
 * go to the end regardless of the offset; O_RDONLY|O_TRUNC still truncates
 * on Linux. Access modes are enforced per descriptor. */
#include "common.h"

int main(void)
{
    put_file("f", "0123456789");
    struct stat st;
    int fd = open("f", O_WRONLY | O_TRUNC);
    fstat(fd, &st);
    out("size after O_TRUNC: %ld", (long)st.st_size);
    write(fd, "abc", 3);
    close(fd);

    fd = open("f", O_WRONLY | O_APPEND);
    out("offset at open with O_APPEND: %ld", (long)lseek(fd, 0, SEEK_CUR));
    lseek(fd, 0, SEEK_SET);
    write(fd, "XY", 2);
    out("offset after append write: %ld", (long)lseek(fd, 0, SEEK_CUR));
    pwrite(fd, "Z", 1, 0);
    close(fd);
    char buf[32] = {0};
    fd = open("f", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    out("contents: %s", buf);
    errno = 0;
    show("write on O_RDONLY fd", write(fd, "x", 1));
    close(fd);
    fd = open("f", O_WRONLY);
    show("read on O_WRONLY fd", read(fd, buf, 1));
    close(fd);
    fd = open("f", O_RDONLY | O_TRUNC);
    fstat(fd, &st);
    out("O_RDONLY|O_TRUNC size: %ld", (long)st.st_size);
    close(fd);
    /* O_TRUNC on a FIFO or /dev/null is ignored. */
    int n = open("/dev/null", O_WRONLY | O_TRUNC);
    out("O_TRUNC on /dev/null: %s", n >= 0 ? "ok" : errname(errno));
    return 0;
}
