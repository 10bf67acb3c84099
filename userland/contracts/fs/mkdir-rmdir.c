/* mkdir/rmdir: modes honour umask, errors for existing names, non-empty
 * directories, files, "." and missing parents. */
#include "common.h"

int main(void)
{
    umask(022);
    struct stat st;
    check("mkdir 0777", mkdir("d", 0777));
    stat("d", &st);
    out("mode: %o type: %s nlink: %ld", st.st_mode & 07777, ftype(st.st_mode), (long)st.st_nlink);
    show("mkdir existing", mkdir("d", 0755));
    put_file("f", "");
    show("mkdir over a file", mkdir("f", 0755));
    show("mkdir missing parent", mkdir("no/such", 0755));
    show("mkdir under a file", mkdir("f/sub", 0755));
    check("mkdir with trailing slash", mkdir("t/", 0755));
    check("mkdir sticky+setgid bits", mkdir("s", 03777));
    stat("s", &st);
    out("mode with special bits: %o", st.st_mode & 07777);
    mkdir("d/sub", 0755);
    show("rmdir non-empty", rmdir("d"));
    show("rmdir a file", rmdir("f"));
    show("rmdir .", rmdir("d/sub/."));
    show("rmdir ..", rmdir("d/sub/.."));
    show("rmdir missing", rmdir("nope"));
    check("rmdir sub", rmdir("d/sub"));
    check("rmdir d", rmdir("d"));
    show("rmdir again", rmdir("d"));
    symlink("t", "tl");
    show("rmdir a symlink to a dir", rmdir("tl"));
    /* The cwd can be removed; then getcwd and creating files fail. */
    mkdir("gone", 0755);
    chdir("gone");
    check("rmdir the cwd", rmdir("../gone"));
    show("create in removed cwd", open("x", O_CREAT | O_WRONLY, 0644));
    char buf[256];
    out("getcwd in removed dir: %s", getcwd(buf, sizeof buf) ? "ok" : errname(errno));
    return 0;
}
