/* fchmod and fchown on a descriptor of a device (a terminal: login(1)
 * gives the user its tty with fchown and fchmod of stdin) change the node
 * it was opened by: stat of the path and fstat of the descriptor show
 * the new mode and owner. */
#include "../common.h"
#include <sys/sysmacros.h>

static void show_stat(const char *label, const struct stat *st)
{
    out("%s: mode %o, uid %d, gid %d, char device %s", label, st->st_mode & 07777, (int)st->st_uid,
        (int)st->st_gid, S_ISCHR(st->st_mode) ? "yes" : "no");
}

int main(void)
{
    check("mknod null (1:3)", mknod("null", S_IFCHR | 0666, makedev(1, 3)));
    int fd = open("null", O_RDWR);
    if (fd < 0) {
        out("open null: %s", errname(errno));
        return 0;
    }
    check("fchown(fd, 1000, 5)", fchown(fd, 1000, 5));
    check("fchmod(fd, 0620)", fchmod(fd, 0620));
    struct stat st;
    if (stat("null", &st) == 0)
        show_stat("stat null", &st);
    if (fstat(fd, &st) == 0)
        show_stat("fstat fd", &st);
    check("fchownat(fd, \"\", 0, 0, AT_EMPTY_PATH)", fchownat(fd, "", 0, 0, AT_EMPTY_PATH));
    if (fstat(fd, &st) == 0)
        show_stat("fstat fd", &st);
    check("write 3 bytes", write(fd, "abc", 3));
    close(fd);
    check("unlink null", unlink("null"));
    return 0;
}
