/* tmpfs lists a directory's entries newest first (Linux 6.1: new dentries
 * go to the head of the parent's list, and dcache_readdir walks it from
 * there): the getdents64 order as it comes, unsorted, as `ls -f` shows
 * it. An entry made in the middle of a listing is not returned by it; a
 * renamed entry moves to the front; RENAME_EXCHANGE puts the new name
 * first, then the old; a re-created name is new. */
#include "common.h"
#include <sys/vfs.h>

#define TMPFS_MAGIC 0x01021994

/* Lists `fd` from where it is, `bufsz` bytes per call, into one line;
 * after the second call, runs `between` (if any). */
static void list(const char *label, int fd, size_t bufsz, void (*between)(void))
{
    char buf[4096];
    char line[512] = "";
    int calls = 0;
    for (;;) {
        long r = syscall(SYS_getdents64, fd, buf, bufsz);
        if (r < 0) {
            out("%s: getdents64 %s", label, errname(errno));
            return;
        }
        if (r == 0)
            break;
        if (++calls == 2 && between)
            between();
        for (long off = 0; off < r;) {
            unsigned short reclen = *(unsigned short *)(buf + off + 16);
            size_t len = strlen(line);
            snprintf(line + len, sizeof line - len, " %s", buf + off + 19);
            off += reclen;
        }
    }
    out("%s:%s", label, line);
}

static void add_late(void) { put_file("d/late", ""); }

int main(void)
{
    struct statfs sf;
    out("scratch on tmpfs: %s", yesno(statfs(".", &sf) == 0 && sf.f_type == TMPFS_MAGIC));
    mkdir("d", 0755);
    put_file("d/a", "");
    put_file("d/b", "");
    mkdir("d/c", 0755);
    symlink("a", "d/e");
    mkfifo("d/f", 0644);
    int fd = open("d", O_RDONLY | O_DIRECTORY);
    list("created a b c e f", fd, sizeof(char[4096]), NULL);
    lseek(fd, 0, SEEK_SET);
    /* 48 bytes: two short entries per call; "late" is made after the
     * second call (past "." and ".."), so this listing does not see it. */
    list("48-byte calls, late made after the second", fd, 48, add_late);
    lseek(fd, 0, SEEK_SET);
    list("listed again", fd, sizeof(char[4096]), NULL);
    show("rename a -> z", rename("d/a", "d/z"));
    lseek(fd, 0, SEEK_SET);
    list("after the rename", fd, sizeof(char[4096]), NULL);
    show("exchange b and c", syscall(SYS_renameat2, AT_FDCWD, "d/b", AT_FDCWD, "d/c", RENAME_EXCHANGE));
    lseek(fd, 0, SEEK_SET);
    list("after the exchange", fd, sizeof(char[4096]), NULL);
    show("unlink e", unlink("d/e"));
    put_file("d/e", "");
    lseek(fd, 0, SEEK_SET);
    list("e re-created", fd, sizeof(char[4096]), NULL);
    mkdir("d2", 0755);
    show("rename f into d2", rename("d/f", "d2/f"));
    put_file("d2/g", "");
    show("rename d/z over d2/g", rename("d/z", "d2/g"));
    int fd2 = open("d2", O_RDONLY | O_DIRECTORY);
    list("d2", fd2, sizeof(char[4096]), NULL);
    lseek(fd, 0, SEEK_SET);
    list("d at the end", fd, sizeof(char[4096]), NULL);
    return 0;
}
