/* File mappings: MAP_PRIVATE sees the file but its writes stay private;
 * MAP_SHARED writes reach the file (read() sees them, msync ok). */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char buf[8192];
    for (int i = 0; i < 8192; i++)
        buf[i] = 'a' + i % 26;
    write(fd, buf, 8192);

    char *priv = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    out("private map: %s", priv == MAP_FAILED ? errname(errno) : "ok");
    out("private sees file: %.6s ... %.3s", priv, priv + 8189);
    priv[0] = 'X';
    char c;
    pread(fd, &c, 1, 0);
    out("file after private write: %c, mapping: %c", c, priv[0]);

    char *sh = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    sh[1] = 'Y';
    pread(fd, &c, 1, 1);
    out("file after shared write: %c", c);
    check("msync", msync(sh, 8192, MS_SYNC));
    /* A write through write() is seen by the shared mapping. */
    pwrite(fd, "Z", 1, 2);
    out("shared mapping sees write(): %c", sh[2]);
    /* ...and by the private mapping's untouched page 2. */
    pwrite(fd, "W", 1, pg + 5);
    out("private mapping untouched page sees write(): %c", priv[pg + 5]);

    /* Offset mapping. */
    char *off = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, pg);
    out("offset mapping first byte: %c", off[0]);

    /* Errors: read-only fd with shared writable mapping; write-only fd. */
    int ro = open("data", O_RDONLY);
    void *q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
    out("shared PROT_WRITE on O_RDONLY fd: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
    out("private PROT_WRITE on O_RDONLY fd: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    int wo = open("data", O_WRONLY);
    q = mmap(NULL, pg, PROT_READ, MAP_SHARED, wo, 0);
    out("O_WRONLY fd: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, pg, PROT_READ, MAP_SHARED, 1000000, 0);
    out("bad fd: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    mkdir("d", 0755);
    int dfd = open("d", O_RDONLY);
    q = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, dfd, 0);
    out("directory fd: %s", q == MAP_FAILED ? errname(errno) : "mapped");
    /* Mapping survives close of the fd. */
    close(fd);
    out("mapping after close: %c", sh[1]);
    return 0;
}
