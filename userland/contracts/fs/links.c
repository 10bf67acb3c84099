/* Hard links share the inode (nlink counts them); unlink removes a name
 * and the data lives while open; link/unlink errors. */
#include "common.h"

int main(void)
{
    put_file("a", "shared data");
    struct stat st, st2;
    check("link a b", link("a", "b"));
    stat("a", &st);
    stat("b", &st2);
    out("nlink: %ld, same inode: %s", (long)st.st_nlink, yesno(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev));
    show("link to existing name", link("a", "b"));
    show("link missing source", link("nope", "c"));
    mkdir("dir", 0755);
    show("link a directory", link("dir", "dirlink"));
    show("link into missing dir", link("a", "nodir/c"));
    int fd = open("a", O_RDONLY);
    check("unlink a", unlink("a"));
    stat("b", &st);
    out("nlink after unlink: %ld", (long)st.st_nlink);
    unlink("b");
    fstat(fd, &st);
    out("open file after last unlink: nlink=%ld size=%ld", (long)st.st_nlink, (long)st.st_size);
    char buf[32] = {0};
    read(fd, buf, sizeof buf - 1);
    out("still readable: %s", buf);
    show("unlink missing", unlink("a"));
    show("unlink directory", unlink("dir"));
    show("unlink with trailing slash", unlink("dir/"));
    symlink("dir", "sl");
    check("unlink symlink (not the target)", unlink("sl"));
    out("target dir still there: %s", yesno(access("dir", F_OK) == 0));
    /* Directory nlink: 2 + subdirectories. */
    mkdir("dir/s1", 0755);
    mkdir("dir/s2", 0755);
    put_file("dir/f", "");
    stat("dir", &st);
    out("directory nlink with 2 subdirs: %ld", (long)st.st_nlink);
    return 0;
}
