/* A program whose file was unlinked re-executes itself through
 * /proc/self/exe: the new image's exe link names the unlinked file with
 * " (deleted)", and reading it must not send the kernel round in circles
 * (a path that names itself once overflowed Kevlar's stack). */
#include "exe.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "unlinked") == 0) {
        show_link("running the copy", "/proc/self/exe");
        unlink("copy");
        show_link("after unlink", "/proc/self/exe");
        char *args[] = {"copy", "again", NULL};
        execv("/proc/self/exe", args);
        out("execv /proc/self/exe: %s", errname(errno));
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "again") == 0) {
        show_link("re-executed through /proc/self/exe", "/proc/self/exe");
        show_link("read twice", "/proc/self/exe");
        return 0;
    }
    copy_self("copy");
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"copy", "unlinked", NULL};
        execv("./copy", args);
        _exit(127);
    }
    reap("child", pid);
    return 0;
}
