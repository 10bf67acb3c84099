/* Symbolic links: readlink returns the target verbatim (no NUL, truncated
 * to the buffer), lstat vs stat, dangling links, relative resolution from
 * the link's directory, readlink on a non-link is EINVAL. */
#include "common.h"

int main(void)
{
    mkdir("d", 0755);
    put_file("d/target", "T");
    check("symlink", symlink("target", "d/rel"));
    check("symlink absolute-ish", symlink("d/target", "fromtop"));
    char buf[64];
    memset(buf, '#', sizeof buf);
    ssize_t n = readlink("d/rel", buf, sizeof buf);
    out("readlink: %ld '%.*s' next byte untouched: %s", (long)n, (int)n, buf, yesno(buf[n] == '#'));
    n = readlink("d/rel", buf, 3);
    out("readlink into 3 bytes: %ld '%.*s'", (long)n, (int)n, buf);
    struct stat st;
    lstat("d/rel", &st);
    out("lstat: %s size=%ld", ftype(st.st_mode), (long)st.st_size);
    out("symlink permission bits: %o", st.st_mode & 0777);
    stat("d/rel", &st);
    out("stat follows: %s size=%ld", ftype(st.st_mode), (long)st.st_size);
    int fd = open("d/rel", O_RDONLY);
    char c = 0;
    read(fd, &c, 1);
    out("open resolves relative to the link's dir: %c", c);
    show("readlink on a file", readlink("d/target", buf, sizeof buf));
    show("readlink missing", readlink("none", buf, sizeof buf));
    show("readlink size 0", readlink("d/rel", buf, 0));
    symlink("nowhere", "dangling");
    show("stat dangling", stat("dangling", &st));
    check("lstat dangling", lstat("dangling", &st));
    show("symlink over existing", symlink("x", "dangling"));
    show("empty target", symlink("", "empty"));
    check("chained links", symlink("fromtop", "chain"));
    memset(buf, 0, sizeof buf);
    fd = open("chain", O_RDONLY);
    read(fd, buf, 1);
    out("through a chain: %s", buf);
    return 0;
}
