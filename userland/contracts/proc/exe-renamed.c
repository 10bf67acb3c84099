/* A running program's file renamed in its directory: /proc/self/exe
 * names the new name (Linux's link follows the file, not the path it
 * was run by), and so does the fd link of a file opened before its
 * rename; a name given back shows again; only removing the last name
 * makes either " (deleted)". Paths are shown relative to the working
 * directory (CWD). */
#include "exe.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        show_link("exe, as run", "/proc/self/exe");
        check("rename renamed-a to renamed-b", rename("renamed-a", "renamed-b"));
        show_link("exe after the rename", "/proc/self/exe");
        show_link("read again", "/proc/self/exe");
        check("rename back", rename("renamed-b", "renamed-a"));
        show_link("exe after renaming back", "/proc/self/exe");
        check("link renamed-c", link("renamed-a", "renamed-c"));
        check("unlink renamed-a", unlink("renamed-a"));
        show_link("exe with another name left", "/proc/self/exe");
        check("unlink renamed-c", unlink("renamed-c"));
        show_link("exe with no name left", "/proc/self/exe");
        return 0;
    }
    mkdir("renamed-dir", 0755);
    if (chdir("renamed-dir") < 0)
        return 1;
    copy_self("renamed-a");
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"renamed-a", "child", NULL};
        execv("./renamed-a", args);
        _exit(127);
    }
    reap("child", pid);

    int fd = open("file-a", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    show_link("fd, as opened", link);
    check("rename file-a to file-b", rename("file-a", "file-b"));
    show_link("fd after the rename", link);
    close(open("file-x", O_CREAT | O_WRONLY, 0644));
    check("rename file-x over file-b", rename("file-x", "file-b"));
    show_link("fd after another file took its name", link);
    unlink("file-b");
    close(fd);
    chdir("..");
    rmdir("renamed-dir");
    return 0;
}
