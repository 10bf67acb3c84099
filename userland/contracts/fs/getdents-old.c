/* getdents (the old call): struct linux_dirent records, d_type in the
 * last byte of each record, d_reclen a multiple of 8; every entry once;
 * a buffer too small for one record is EINVAL; a file is ENOTDIR; a bad
 * buffer is EFAULT; a bad fd EBADF. */
#include "common.h"

struct old_dirent {
    unsigned long d_ino;
    unsigned long d_off;
    unsigned short d_reclen;
    char d_name[];
};

static const char *dtype(int t)
{
    switch (t) {
    case DT_REG: return "reg";
    case DT_DIR: return "dir";
    case DT_LNK: return "lnk";
    case DT_FIFO: return "fifo";
    }
    return "other";
}

struct ent { char name[64]; int type; };
static int cmp(const void *a, const void *b) { return strcmp(((struct ent *)a)->name, ((struct ent *)b)->name); }

int main(void)
{
    mkdir("d", 0755);
    put_file("d/file", "x");
    mkdir("d/sub", 0755);
    symlink("file", "d/link");
    mkfifo("d/fifo", 0644);
    put_file("d/a-much-longer-name-than-the-others", "y");

    struct ent ents[16];
    int n = 0, calls = 0, aligned = 1, nul = 1;
    int fd = open("d", O_RDONLY | O_DIRECTORY);
    char buf[64];
    for (;;) {
        /* 64 bytes: a record or two per call. */
        long r = syscall(SYS_getdents, fd, buf, sizeof buf);
        if (r < 0) {
            out("getdents: %s", errname(errno));
            break;
        }
        if (r == 0)
            break;
        calls++;
        for (long at = 0; at < r;) {
            struct old_dirent *d = (struct old_dirent *)(buf + at);
            if (d->d_reclen % 8)
                aligned = 0;
            size_t len = strnlen(d->d_name, d->d_reclen - 18);
            if (len == (size_t)(d->d_reclen - 18))
                nul = 0;
            if (n < 16) {
                snprintf(ents[n].name, sizeof ents[n].name, "%s", d->d_name);
                ents[n].type = buf[at + d->d_reclen - 1];
                n++;
            }
            at += d->d_reclen;
        }
    }
    qsort(ents, n, sizeof ents[0], cmp);
    for (int i = 0; i < n; i++)
        out("%s %s", ents[i].name, dtype(ents[i].type));
    out("several calls: %s, reclen multiple of 8: %s, names NUL-terminated: %s", yesno(calls > 1), yesno(aligned), yesno(nul));

    lseek(fd, 0, SEEK_SET);
    check("buffer of 16 bytes", syscall(SYS_getdents, fd, buf, 16));
    check("bad buffer", syscall(SYS_getdents, fd, (void *)8, 4096));
    int f = open("d/file", O_RDONLY);
    check("a file", syscall(SYS_getdents, f, buf, sizeof buf));
    check("bad fd", syscall(SYS_getdents, 999, buf, sizeof buf));
    return 0;
}
