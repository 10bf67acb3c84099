/* rename: replaces files atomically, directory rules (ENOTEMPTY, EISDIR,
 * ENOTDIR, EINVAL into itself), renameat2 RENAME_NOREPLACE and
 * RENAME_EXCHANGE. */
#include "common.h"

static long r2(const char *a, const char *b, unsigned flags)
{
    return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, flags);
}

static void cat(const char *label, const char *path)
{
    char buf[32] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    read(fd, buf, sizeof buf - 1);
    close(fd);
    out("%s: %s", label, buf);
}

int main(void)
{
    put_file("a", "A");
    put_file("b", "B");
    check("rename a c", rename("a", "c"));
    out("a gone: %s", yesno(access("a", F_OK) < 0));
    check("rename c over b", rename("c", "b"));
    cat("b now", "b");
    check("rename to itself", rename("b", "b"));
    mkdir("d1", 0755);
    mkdir("d2", 0755);
    put_file("d2/x", "");
    mkdir("d3", 0755);
    check("rename dir over empty dir", rename("d1", "d3"));
    show("rename dir over non-empty dir", rename("d3", "d2"));
    show("rename file over dir", rename("b", "d2"));
    show("rename dir over file", rename("d2", "b"));
    show("rename dir into itself", rename("d2", "d2/sub"));
    show("rename missing", rename("zzz", "yyy"));
    show("rename into missing dir", rename("b", "nodir/b"));
    show("rename . ", rename(".", "dot"));
    put_file("p", "P");
    put_file("q", "Q");
    show("RENAME_NOREPLACE onto existing", r2("p", "q", RENAME_NOREPLACE));
    show("RENAME_NOREPLACE to new name", r2("p", "p2", RENAME_NOREPLACE));
    show("RENAME_EXCHANGE", r2("p2", "q", RENAME_EXCHANGE));
    cat("p2", "p2");
    cat("q", "q");
    show("RENAME_EXCHANGE with missing target", r2("p2", "none", RENAME_EXCHANGE));
    show("NOREPLACE|EXCHANGE", r2("p2", "q", RENAME_NOREPLACE | RENAME_EXCHANGE));
    show("bad flags", r2("p2", "q", 0x100));
    /* A symlink is renamed, not its target. */
    symlink("q", "ln");
    rename("ln", "ln2");
    struct stat st;
    lstat("ln2", &st);
    out("renamed symlink is still a symlink: %s", yesno(S_ISLNK(st.st_mode)));
    /* Open fds follow the file across a rename. */
    int fd = open("q", O_RDONLY);
    rename("q", "d2/q");
    char c = 0;
    read(fd, &c, 1);
    out("open fd after rename reads: %c", c);
    return 0;
}
