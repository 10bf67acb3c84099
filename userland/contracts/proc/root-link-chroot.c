/* /proc/PID/root and /proc/PID/cwd of a chrooted process, read by a
 * process outside the jail: Linux writes the path as the reader sees it
 * (relative to the reader's root), so the jail's directory shows, not "/"
 * (OpenSSH's privilege-separated child lives in such a jail). */
#include "../common.h"
#include <signal.h>
#include <sys/wait.h>

/* Prints link `path` with the working directory replaced by "CWD". */
static void show_link(const char *label, const char *path, const char *cwd)
{
    char buf[512];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    buf[n] = 0;
    size_t c = strlen(cwd);
    if (strncmp(buf, cwd, c) == 0)
        out("%s: CWD%s", label, buf + c);
    else
        out("%s: %s", label, buf);
}

int main(void)
{
    char cwd[256], path[64];
    getcwd(cwd, sizeof cwd);
    mkdir("jail", 0755);
    mkdir("jail/sub", 0755);
    int ready[2];
    pipe(ready);
    pid_t child = fork();
    if (child == 0) {
        char ok = chroot("jail") == 0 && chdir("/sub") == 0;
        write(ready[1], &ok, 1);
        pause();
        _exit(0);
    }
    char ok = 0;
    read(ready[0], &ok, 1);
    out("child jailed: %d", ok);
    snprintf(path, sizeof path, "/proc/%d/root", child);
    show_link("root", path, cwd);
    snprintf(path, sizeof path, "/proc/%d/cwd", child);
    show_link("cwd", path, cwd);
    show_link("own root", "/proc/self/root", cwd);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    rmdir("jail/sub");
    rmdir("jail");
    return 0;
}
