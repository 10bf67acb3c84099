/* inotify and exec: running a watched program reports what Linux's exec
 * does to the file (it opens it, reads its headers, and closes it when
 * the last mapping of it goes with the process). */
#include "inotify.h"
#include <fcntl.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return 7;
    int in = open("/proc/self/exe", O_RDONLY);
    int to = open("prog", O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[4096];
    long n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        write(to, buf, n);
    close(in);
    close(to);
    int fd = inotify_init1(IN_NONBLOCK);
    out("watch: %s", inotify_add_watch(fd, "prog", IN_ALL_EVENTS) >= 0 ? "ok" : errname(errno));
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"./prog", "child", NULL};
        execv("./prog", args);
        _exit(99);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));
    dump("events of one exec", fd);
    return 0;
}
