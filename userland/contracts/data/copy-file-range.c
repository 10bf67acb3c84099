/* copy_file_range (Linux 6.1): copies between regular files of one file
 * system, with and without offsets (positions moved only without), short
 * at end of file, 0 past it; EINVAL for flags, overlapping ranges of one
 * file, pipes and devices; EISDIR; EBADF for access modes and O_APPEND;
 * EXDEV across file systems; EOVERFLOW when offset + length wraps. */
#include "common.h"

static long cfr(int in, loff_t *oin, int outfd, loff_t *oout, size_t len, unsigned flags)
{
    return syscall(SYS_copy_file_range, in, oin, outfd, oout, len, flags);
}

int main(void)
{
    put_file("src", "0123456789abcdef");
    int in = open("src", O_RDONLY);
    int o = open("dst", O_RDWR | O_CREAT, 0644);
    show("copy 4", cfr(in, NULL, o, NULL, 4, 0));
    out("positions %ld %ld", (long)lseek(in, 0, SEEK_CUR), (long)lseek(o, 0, SEEK_CUR));
    loff_t oi = 10, oo = 20;
    show("copy with offsets", cfr(in, &oi, o, &oo, 100, 0));
    out("offsets %ld %ld, positions %ld %ld", (long)oi, (long)oo, (long)lseek(in, 0, SEEK_CUR), (long)lseek(o, 0, SEEK_CUR));
    char buf[32] = {0};
    pread(o, buf, 26, 0);
    struct stat st;
    fstat(o, &st);
    out("dst size %ld, head '%.4s', tail '%s'", (long)st.st_size, buf, buf + 20);
    oi = 16;
    show("at end of file", cfr(in, &oi, o, NULL, 4, 0));
    oi = 100;
    show("past end of file", cfr(in, &oi, o, NULL, 4, 0));
    show("length 0", cfr(in, NULL, o, NULL, 0, 0));
    show("flags 1", cfr(in, NULL, o, NULL, 4, 1));
    int rw = open("src", O_RDWR);
    oi = 0; oo = 4;
    show("overlapping in one file", cfr(rw, &oi, rw, &oo, 8, 0));
    oi = 0; oo = 8;
    show("adjacent in one file", cfr(rw, &oi, rw, &oo, 8, 0));
    pread(rw, buf, 16, 0);
    buf[16] = 0;
    out("src now %s", buf);
    int p[2];
    pipe(p);
    show("pipe input", cfr(p[0], NULL, o, NULL, 4, 0));
    show("pipe output", cfr(in, NULL, p[1], NULL, 4, 0));
    int null = open("/dev/null", O_WRONLY);
    show("/dev/null output", cfr(in, NULL, null, NULL, 4, 0));
    mkdir("d", 0755);
    int d = open("d", O_RDONLY | O_DIRECTORY);
    show("directory input", cfr(d, NULL, o, NULL, 4, 0));
    show("bad fd", cfr(99, NULL, o, NULL, 4, 0));
    int wo = open("src", O_WRONLY);
    show("write-only input", cfr(wo, NULL, o, NULL, 4, 0));
    show("read-only output", cfr(in, NULL, in, NULL, 4, 0));
    int ap = open("dst", O_WRONLY | O_APPEND);
    show("O_APPEND output", cfr(in, NULL, ap, NULL, 4, 0));
    oi = 0x7ffffffffffffff0LL;
    show("offset + length wraps", cfr(in, &oi, o, NULL, 0x100, 0));
    oi = -1;
    show("negative offset", cfr(in, &oi, o, NULL, 4, 0));
    show("bad offset pointer", cfr(in, (loff_t *)8, o, NULL, 4, 0));
    int other = open("/cfr-other-fs", O_RDWR | O_CREAT, 0644);
    if (other >= 0) {
        show("across file systems", cfr(in, NULL, other, NULL, 4, 0));
        unlink("/cfr-other-fs");
    }
    return 0;
}
