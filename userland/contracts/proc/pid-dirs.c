/* /proc/PID of another process through its life: listed in /proc,
 * sleeping (S), stopped (T), a zombie (Z, no command line, no exe), gone
 * once reaped; and what a process of another user may not see. */
#include "../common.h"

static char state_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return '-';
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p ? p[2] : '?';
}

/* Waits (up to 5 s) for `pid` to reach state `want`. */
static char wait_state(pid_t pid, char want)
{
    char s = 0;
    for (int i = 0; i < 500; i++) {
        s = state_of(pid);
        if (s == want)
            break;
        msleep(10);
    }
    return s;
}

static int listed(pid_t pid)
{
    char want[16];
    snprintf(want, sizeof want, "%d", pid);
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, want) == 0)
            found = e->d_type == DT_DIR ? 1 : 2;
    closedir(d);
    return found;
}

int main(void)
{
    int ready[2];
    pipe(ready);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    char c;
    read(ready[0], &c, 1);
    out("child listed in /proc as a directory: %s", yesno(listed(pid) == 1));
    out("self listed: %s", yesno(listed(getpid()) == 1));
    out("sleeping child: %c", wait_state(pid, 'S'));
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    int fd = open(path, O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    char *ppid = strstr(buf, "\nPPid:\t");
    out("status PPid is us: %s", yesno(ppid && atol(ppid + 7) == getpid()));
    kill(pid, SIGSTOP);
    out("stopped child: %c", wait_state(pid, 'T'));
    kill(pid, SIGCONT);
    out("continued child: %c", wait_state(pid, 'S'));
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", pid);
    stat(path, &st);
    out("directory owned by the child's uid: %s", yesno(st.st_uid == getuid()));
    out("directory mode: %04o", st.st_mode & 07777);

    kill(pid, SIGKILL);
    out("zombie child: %c", wait_state(pid, 'Z'));
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    fd = open(path, O_RDONLY);
    n = read(fd, buf, sizeof buf);
    close(fd);
    out("zombie cmdline bytes: %zd", n);
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    check("zombie exe readlink", readlink(path, buf, sizeof buf));
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    fd = open(path, O_RDONLY);
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    out("zombie status State: %s", strstr(buf, "State:\tZ (zombie)") ? "Z (zombie)" : "other");
    out("zombie status has VmSize: %s", yesno(strstr(buf, "VmSize") != NULL));
    /* An open file of a process that is gone fails with ESRCH. */
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int held = open(path, O_RDONLY);
    reap("child", pid);
    snprintf(path, sizeof path, "/proc/%d", pid);
    check("stat after reaping", stat(path, &st));
    out("listed after reaping: %s", yesno(listed(pid)));
    errno = 0;
    n = read(held, buf, sizeof buf);
    out("read of a file held open past the reap: %zd %s", n, n < 0 ? errname(errno) : "");
    check("/proc/0", stat("/proc/0", &st));
    check("/proc/01", stat("/proc/01", &st));

    /* Another user sees the stat of init but not its memory or files. */
    pid = fork();
    if (pid == 0) {
        setgid(1000);
        setuid(1000);
        check("uid 1000 reads /proc/1/stat", open("/proc/1/stat", O_RDONLY));
        check("uid 1000 reads /proc/1/environ", open("/proc/1/environ", O_RDONLY));
        check("uid 1000 reads /proc/1/exe", readlink("/proc/1/exe", buf, sizeof buf));
        check("uid 1000 lists /proc/1/fd", open("/proc/1/fd", O_RDONLY | O_DIRECTORY));
        check("uid 1000 reads its own environ", open("/proc/self/environ", O_RDONLY));
        check("uid 1000 reads its own exe", readlink("/proc/self/exe", buf, sizeof buf));
        check("uid 1000 writes /proc/sys/kernel/hostname", open("/proc/sys/kernel/hostname", O_WRONLY));
        _exit(0);
    }
    reap("uid 1000 child", pid);
    return 0;
}
