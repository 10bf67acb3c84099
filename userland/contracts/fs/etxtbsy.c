/* ETXTBSY: a running program's file cannot be opened for writing or
 * truncated, and a file open for writing cannot be executed. (Found by
 * kfuzz: truncating the fuzzer's own executable through /proc/self/exe
 * made its parent die of SIGBUS at its next instruction fetch.) */
#include "common.h"

static int copy_self(const char *to) { return copy_file_open("/proc/self/exe", to, 0755); }

/* Runs `path child` and returns how the exec went: 0 if the program ran
 * (it exits 7), else the errno execve failed with. */
static int run(const char *path)
{
    int p[2];
    pipe2(p, O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)path, "child", NULL};
        execv(path, argv);
        int e = errno;
        write(p[1], &e, sizeof e);
        _exit(1);
    }
    close(p[1]);
    int e = 0;
    if (read(p[0], &e, sizeof e) != sizeof e)
        e = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    if (e == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 7))
        return -1;
    return e;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return 7;
    if (argc > 1 && strcmp(argv[1], "wait") == 0) {
        /* Runs until its stdin (a pipe) closes. */
        char c;
        read(0, &c, 1);
        return 0;
    }
    show("open own executable O_WRONLY", open("/proc/self/exe", O_WRONLY));
    show("open own executable O_RDWR", open("/proc/self/exe", O_RDWR));
    show("open own executable O_RDONLY|O_TRUNC", open("/proc/self/exe", O_RDONLY | O_TRUNC));
    show("truncate own executable", truncate("/proc/self/exe", 0));
    int ro = open("/proc/self/exe", O_RDONLY);
    out("open own executable O_RDONLY: %s", ro >= 0 ? "ok" : errname(errno));
    close(ro);

    /* A copy open for writing cannot be executed; closed, it can. */
    int w = copy_self("prog");
    int e = run("./prog");
    out("exec while open for writing: %s", e ? errname(e) : "ran");
    int w2 = dup(w);
    close(w);
    e = run("./prog");
    out("exec while a dup is open for writing: %s", e ? errname(e) : "ran");
    close(w2);
    e = run("./prog");
    out("exec after close: %s", e > 0 ? errname(e) : e == 0 ? "ran" : "bad status");
    int r = open("prog", O_RDONLY);
    e = run("./prog");
    out("exec while open read-only: %s", e > 0 ? errname(e) : e == 0 ? "ran" : "bad status");
    close(r);

    /* While the copy runs, writers are refused; once it is gone, not. */
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[0], 0);
        close(p[1]);
        char *args[] = {"./prog", "wait", NULL};
        execv("./prog", args);
        _exit(1);
    }
    close(p[0]);
    /* Wait until the child runs the copy (its /proc/PID/exe names it). */
    char link[64], target[256];
    snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
    for (int i = 0; i < 2000; i++) {
        long n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            if (strstr(target, "prog"))
                break;
        }
        usleep(1000);
    }
    show("open running copy O_WRONLY", open("prog", O_WRONLY));
    show("truncate running copy", truncate("prog", 0));
    int fd = open("prog", O_RDONLY);
    out("open running copy O_RDONLY: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    close(p[1]);
    int st;
    waitpid(pid, &st, 0);
    out("copy exited: %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    fd = open("prog", O_WRONLY);
    out("open the copy O_WRONLY after it ended: %s", fd >= 0 ? "ok" : errname(errno));
    close(fd);
    check("truncate the copy after it ended", truncate("prog", 0));
    return 0;
}
