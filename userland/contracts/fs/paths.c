/* Path resolution: ".", "..", repeated slashes, ".." at the root, symlink
 * loops (ELOOP), too many links in a chain, a file used as a directory or
 * with a trailing slash (ENOTDIR), over-long names (ENAMETOOLONG). */
#include "common.h"

static void try_open(const char *label, const char *path, int flags)
{
    int fd = open(path, flags, 0644);
    if (fd >= 0) {
        out("%s: ok", label);
        close(fd);
    } else {
        out("%s: %s", label, errname(errno));
    }
}

int main(void)
{
    mkdir("a", 0755);
    mkdir("a/b", 0755);
    put_file("a/b/f", "F");
    try_open("a/./b/../b/f", "a/./b/../b/f", O_RDONLY);
    try_open("a//b///f", "a//b///f", O_RDONLY);
    try_open("./a/b/f", "./a/b/f", O_RDONLY);
    try_open("/.. is /", "/../../tmp/../dev/null", O_RDONLY);
    try_open("file as directory", "a/b/f/x", O_RDONLY);
    try_open("trailing slash on file", "a/b/f/", O_RDONLY);
    try_open("trailing /. on file", "a/b/f/.", O_RDONLY);
    try_open("O_CREAT with trailing slash", "a/new/", O_CREAT | O_WRONLY);
    try_open("directory with trailing slash", "a/b/", O_RDONLY);
    try_open("missing component", "a/zz/f", O_RDONLY);
    try_open("empty path", "", O_RDONLY);
    symlink("loop2", "loop1");
    symlink("loop1", "loop2");
    try_open("symlink loop", "loop1", O_RDONLY);
    try_open("symlink loop in the middle", "loop1/x", O_RDONLY);
    symlink("self", "self");
    try_open("self loop", "self", O_RDONLY);
    /* A chain of 40 links resolves; 41 is too many. */
    char name[32], target[32];
    put_file("end", "E");
    for (int i = 1; i <= 41; i++) {
        snprintf(name, sizeof name, "c%d", i);
        if (i == 1)
            snprintf(target, sizeof target, "end");
        else
            snprintf(target, sizeof target, "c%d", i - 1);
        symlink(target, name);
    }
    try_open("chain of 40 links", "c40", O_RDONLY);
    try_open("chain of 41 links", "c41", O_RDONLY);
    symlink("a/b/f", "flink");
    try_open("symlink to file with trailing slash", "flink/", O_RDONLY);
    char longname[300];
    memset(longname, 'n', 256);
    longname[256] = 0;
    try_open("256-byte component", longname, O_CREAT | O_WRONLY);
    longname[255] = 0;
    try_open("255-byte component", longname, O_CREAT | O_WRONLY);
    static char longpath[5000];
    memset(longpath, 0, sizeof longpath);
    for (int i = 0; i < 4200; i += 2)
        memcpy(longpath + i, "./", 2);
    strcat(longpath, "end");
    try_open("path over 4096 bytes", longpath, O_RDONLY);
    struct stat st;
    out("stat . and a/.. same: %s", yesno(stat(".", &st) == 0 && ({ struct stat s2; stat("a/..", &s2) == 0 && s2.st_ino == st.st_ino; })));
    out("stat / and /.. same: %s", yesno(stat("/", &st) == 0 && ({ struct stat s2; stat("/..", &s2) == 0 && s2.st_ino == st.st_ino; })));
    return 0;
}
