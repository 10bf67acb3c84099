/* A program whose file was unlinked re-executes itself through
 * /proc/self/exe: the new image's exe link names the unlinked file with
 * " (deleted)", and reading it must not send the kernel round in circles
 * (a path that names itself once overflowed Kevlar's stack). */
#include "../common.h"

static void copy_self(const char *to)
{
    int in = open("/proc/self/exe", O_RDONLY);
    int outfd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[4096];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        write(outfd, buf, n);
    close(in);
    close(outfd);
}

/* Prints the exe link with the working directory replaced by "CWD". */
static void show_exe(const char *label)
{
    char buf[512], cwd[256];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    buf[n] = 0;
    getcwd(cwd, sizeof cwd);
    size_t c = strlen(cwd);
    if (strncmp(buf, cwd, c) == 0)
        out("%s: CWD%s", label, buf + c);
    else
        out("%s: elsewhere", label);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "unlinked") == 0) {
        show_exe("running the copy");
        unlink("copy");
        show_exe("after unlink");
        char *args[] = {"copy", "again", NULL};
        execv("/proc/self/exe", args);
        out("execv /proc/self/exe: %s", errname(errno));
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "again") == 0) {
        show_exe("re-executed through /proc/self/exe");
        show_exe("read twice");
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
