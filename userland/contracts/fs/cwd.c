/* getcwd/chdir/fchdir: the starting directory is the runner's scratch
 * directory; chdir into subdirectories, "..", through symlinks (getcwd
 * shows the real path); errors ENOTDIR, ENOENT, ERANGE. */
#include "common.h"

static void pwd(const char *label)
{
    char buf[512];
    if (getcwd(buf, sizeof buf))
        out("%s: %s", label, buf);
    else
        out("%s: %s", label, errname(errno));
}

int main(void)
{
    pwd("start");
    mkdir("a", 0755);
    mkdir("a/b", 0755);
    symlink("a/b", "lb");
    put_file("file", "");
    int top = open(".", O_RDONLY);
    check("chdir a/b", chdir("a/b"));
    pwd("now");
    check("chdir ..", chdir(".."));
    pwd("now");
    check("fchdir back", fchdir(top));
    pwd("now");
    check("chdir through symlink", chdir("lb"));
    pwd("now (real path)");
    fchdir(top);
    show("chdir to a file", chdir("file"));
    show("chdir missing", chdir("missing"));
    int f = open("file", O_RDONLY);
    show("fchdir to a file", fchdir(f));
    show("fchdir bad fd", fchdir(1000));
    char small[4];
    out("getcwd into 4 bytes: %s", getcwd(small, sizeof small) ? "ok" : errname(errno));
    long r = syscall(SYS_getcwd, small, 0);
    out("raw getcwd size 0: %s", r < 0 ? errname(errno) : "ok");
    char buf[512];
    r = syscall(SYS_getcwd, buf, sizeof buf);
    out("raw getcwd returns length incl. NUL: %s", yesno(r == (long)strlen(buf) + 1));
    check("chdir /", chdir("/"));
    check("chdir .. at /", chdir(".."));
    pwd("still");
    check("chdir /tmp/../tmp/.", chdir("/tmp/../tmp/."));
    pwd("now");
    return 0;
}
