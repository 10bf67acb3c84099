/* /proc/PID/cmdline and environ are read from the process's memory (NUL
 * separated, as exec laid them out; a title written over argv shows);
 * comm is the executed file's name, changed by prctl and by writing
 * /proc/self/comm. */
#include "../common.h"
#include <sys/prctl.h>

static void show_file(const char *label, const char *path)
{
    char buf[512];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    ssize_t n = read_full(fd, buf, sizeof buf - 1);
    close(fd);
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = '|';
        else if (buf[i] == '\n')
            buf[i] = '$';
    buf[n < 0 ? 0 : n] = 0;
    out("%s: [%s] (%zd bytes)", label, buf, n);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        show_file("child cmdline", "/proc/self/cmdline");
        show_file("child environ", "/proc/self/environ");
        show_file("child comm", "/proc/self/comm");
        out("READY");
        /* Wait for the parent to look at us, then overwrite argv. */
        char c;
        read(0, &c, 1);
        size_t len = argv[argc - 1] + strlen(argv[argc - 1]) - argv[0];
        /* No NUL left in the argument area: the title runs on into the
         * environment, as setproctitle() does. */
        memset(argv[0], 'x', len + 1);
        out("READY");
        read(0, &c, 1);
        return 0;
    }

    show_file("comm", "/proc/self/comm");
    prctl(PR_SET_NAME, "renamed-by-prctl-long-name");
    show_file("comm after prctl", "/proc/self/comm");
    int fd = open("/proc/self/comm", O_WRONLY);
    check("open comm for writing", fd);
    check("write comm", write(fd, "via-proc", 8));
    close(fd);
    char name[32] = "";
    prctl(PR_GET_NAME, name);
    out("PR_GET_NAME after writing comm: %s", name);

    int to_child[2], from_child[2];
    pipe(to_child);
    pipe(from_child);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        char *args[] = {"/contracts/proc/cmdline-comm", "child", "two words", "", "end", NULL};
        char *env[] = {"A=1", "EMPTY=", "LAST=z", NULL};
        execve(args[0], args, env);
        _exit(127);
    }
    close(from_child[1]);
    /* The child prints three lines, then READY. */
    char text[2048];
    size_t n = 0;
    while (n < sizeof text - 1 && read(from_child[0], text + n, 1) == 1) {
        n++;
        if (n >= 6 && memcmp(text + n - 6, "READY\n", 6) == 0)
            break;
    }
    write(1, text, n - 6);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    show_file("parent reads child's cmdline", path);
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    show_file("parent reads child's comm", path);
    write(to_child[1], "x", 1);
    char ready[6];
    read_full(from_child[0], ready, 6);
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    show_file("cmdline after the title changed", path);
    write(to_child[1], "x", 1);
    reap("child", pid);
    return 0;
}
