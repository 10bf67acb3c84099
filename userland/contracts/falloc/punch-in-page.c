/* A hole punched inside one page of a tmpfs file (neither end on a page
 * boundary) zeroes just those bytes and frees nothing; one that reaches a
 * page boundary from inside a page too. (Kevlar panicked on the first:
 * kfuzz seed 9101, docs/fuzzing.md bug 13.) */
#include "common.h"

#define PUNCH 0x02
#define KEEP 0x01

/* Prints the zero byte ranges of the file's first `len` bytes. */
static void zeros(const char *label, int fd, int len)
{
    char buf[16384];
    int n = pread(fd, buf, len, 0);
    char line[256] = "";
    for (int i = 0; i < n;) {
        if (buf[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < n && buf[j] == 0)
            j++;
        size_t l = strlen(line);
        snprintf(line + l, sizeof line - l, " [%d,%d)", i, j);
        i = j;
    }
    struct stat s;
    fstat(fd, &s);
    out("%s: size %ld, zeros%s", label, (long)s.st_size, line[0] ? line : " none");
}

int main(void)
{
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char data[12288];
    memset(data, 'x', sizeof data);
    check("write 12288", write(fd, data, sizeof data) == (ssize_t)sizeof data ? 0 : -1);
    check("punch 100+100", fallocate(fd, PUNCH | KEEP, 100, 100));
    zeros("after punch 100+100", fd, sizeof data);
    check("punch 4196+10", fallocate(fd, PUNCH | KEEP, 4196, 10));
    zeros("after punch 4196+10", fd, sizeof data);
    check("punch 3000+1096 (to a boundary)", fallocate(fd, PUNCH | KEEP, 3000, 1096));
    zeros("after punch 3000+1096", fd, sizeof data);
    check("punch 8200+1", fallocate(fd, PUNCH | KEEP, 8200, 1));
    zeros("after punch 8200+1", fd, sizeof data);
    check("punch 12000+1000 (past the end)", fallocate(fd, PUNCH | KEEP, 12000, 1000));
    zeros("after punch 12000+1000", fd, sizeof data);
    return 0;
}
