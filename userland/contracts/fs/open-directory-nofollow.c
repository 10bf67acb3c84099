/* O_DIRECTORY requires a directory; directories cannot be opened for
 * writing; O_NOFOLLOW refuses a final symlink with ELOOP but follows
 * symlinks earlier in the path. */
#include "common.h"

int main(void)
{
    mkdir("d", 0755);
    put_file("d/file", "x");
    symlink("d", "dlink");
    symlink("d/file", "flink");
    show("O_DIRECTORY on directory", open("d", O_RDONLY | O_DIRECTORY));
    show("O_DIRECTORY on file", open("d/file", O_RDONLY | O_DIRECTORY));
    show("O_DIRECTORY through symlink to dir", open("dlink", O_RDONLY | O_DIRECTORY));
    show("directory O_WRONLY", open("d", O_WRONLY));
    show("directory O_RDWR", open("d", O_RDWR));
    show("directory O_CREAT", open("d", O_CREAT | O_RDONLY, 0644));
    show("O_NOFOLLOW on symlink to file", open("flink", O_RDONLY | O_NOFOLLOW));
    show("O_NOFOLLOW on symlink to dir", open("dlink", O_RDONLY | O_NOFOLLOW));
    show("O_NOFOLLOW with symlink in the middle", open("dlink/file", O_RDONLY | O_NOFOLLOW));
    show("O_NOFOLLOW on regular file", open("d/file", O_RDONLY | O_NOFOLLOW));
    int p = open("flink", O_PATH | O_NOFOLLOW);
    struct stat st;
    fstat(p, &st);
    out("O_PATH|O_NOFOLLOW opens the link itself: %s", ftype(st.st_mode));
    char c;
    show("read on O_PATH fd", read(p, &c, 1));
    return 0;
}
