/* /proc/PID/mem reads and writes another process's memory at the file
 * offset (mode 0600, the owner's); an unmapped address gives EIO; uid
 * 1000 cannot open a root process's. */
#include "ptrace.h"

static volatile long value = 0x1122334455667788L;

int main(void)
{
    int go[2], done[2];
    pipe(go);
    pipe(done);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(go[0], &c, 1);
        write(done[1], value == 0x0102030405060708L ? "y" : "n", 1);
        pause();
        _exit(0);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    struct stat st;
    stat(path, &st);
    out("mode: %o", st.st_mode & 07777);
    int fd = open(path, O_RDWR);
    check("open", fd);
    long word = 0;
    show("pread", pread(fd, &word, sizeof word, (off_t)(uintptr_t)&value));
    out("value: %lx", word);
    long nv = 0x0102030405060708L;
    show("pwrite", pwrite(fd, &nv, sizeof nv, (off_t)(uintptr_t)&value));
    show("pread at 0", pread(fd, &word, sizeof word, 0));
    show("pwrite at 0", pwrite(fd, &nv, sizeof nv, 0));
    show("lseek", lseek(fd, (off_t)(uintptr_t)&value, SEEK_SET) == (off_t)(uintptr_t)&value);
    word = 0;
    show("read", read(fd, &word, sizeof word));
    out("value: %lx", word);
    write(go[1], "x", 1);
    char c = 0;
    read(done[0], &c, 1);
    out("child saw the write: %c", c);
    pid_t other = fork();
    if (other == 0) {
        if (setgid(1000) != 0 || setuid(1000) != 0)
            _exit(100);
        int f = open(path, O_RDONLY);
        _exit(f < 0 ? errno : 0);
    }
    int s;
    waitpid(other, &s, 0);
    out("open as uid 1000: %s", WIFEXITED(s) ? errname(WEXITSTATUS(s)) : wstatus(s));
    close(fd);
    kill(pid, SIGKILL);
    reap("end", pid);
    return 0;
}
