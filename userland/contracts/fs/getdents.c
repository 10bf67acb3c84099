/* getdents64 lists every entry once, including "." and "..", with d_type;
 * sorted here since the order is not defined. Small buffers work in
 * several calls; a too-small buffer is EINVAL; a file is ENOTDIR. */
#include "common.h"

struct ent { char name[64]; int type; };

static const char *dtype(int t)
{
    switch (t) {
    case DT_REG: return "reg";
    case DT_DIR: return "dir";
    case DT_LNK: return "lnk";
    case DT_FIFO: return "fifo";
    case DT_UNKNOWN: return "unknown";
    }
    return "other";
}

static int cmp(const void *a, const void *b) { return strcmp(((struct ent *)a)->name, ((struct ent *)b)->name); }

static int list(int fd, size_t bufsz, struct ent *ents, int *calls)
{
    char buf[4096];
    int n = 0;
    *calls = 0;
    for (;;) {
        long r = syscall(SYS_getdents64, fd, buf, bufsz);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        (*calls)++;
        for (long off = 0; off < r;) {
            unsigned short reclen = *(unsigned short *)(buf + off + 16);
            ents[n].type = *(unsigned char *)(buf + off + 18);
            snprintf(ents[n].name, sizeof ents[n].name, "%s", buf + off + 19);
            n++;
            off += reclen;
        }
    }
    qsort(ents, n, sizeof ents[0], cmp);
    return n;
}

int main(void)
{
    mkdir("d", 0755);
    put_file("d/a", "");
    put_file("d/c", "");
    mkdir("d/b", 0755);
    symlink("a", "d/link");
    mkfifo("d/pipe", 0644);
    char longname[40];
    memset(longname, 'x', 39);
    longname[39] = 0;
    char path[64];
    snprintf(path, sizeof path, "d/%s", longname);
    put_file(path, "");
    struct ent ents[64];
    int calls;
    int fd = open("d", O_RDONLY | O_DIRECTORY);
    int n = list(fd, sizeof(char[4096]), ents, &calls);
    out("entries: %d", n);
    for (int i = 0; i < n; i++)
        out("  %s %s", ents[i].name, dtype(ents[i].type));
    out("second pass at end: %ld", (long)syscall(SYS_getdents64, fd, (char[512]){0}, 512));
    lseek(fd, 0, SEEK_SET);
    n = list(fd, 64, ents, &calls);
    out("with a 64-byte buffer: %d entries, more than one call: %s", n, yesno(calls > 1));
    lseek(fd, 0, SEEK_SET);
    char tiny[8];
    show("buffer smaller than one entry", syscall(SYS_getdents64, fd, tiny, sizeof tiny));
    int f = open("d/a", O_RDONLY);
    show("getdents64 on a file", syscall(SYS_getdents64, f, tiny, sizeof tiny));
    show("getdents64 bad fd", syscall(SYS_getdents64, 1000, tiny, sizeof tiny));
    /* Entries removed before listing do not appear. */
    unlink("d/c");
    rmdir("d/b");
    lseek(fd, 0, SEEK_SET);
    n = list(fd, 4096, ents, &calls);
    out("after removing two: %d", n);
    mkdir("empty", 0755);
    int e = open("empty", O_RDONLY);
    n = list(e, 4096, ents, &calls);
    out("empty dir: %d entries: %s %s", n, ents[0].name, ents[1].name);
    return 0;
}
