/* pid_max: ids are handed out below it and wrap to just above 300,
 * skipping ids in use; out-of-range settings are EINVAL. */
#include "common.h"

static int set_pid_max(const char *v)
{
    int fd = open("/proc/sys/kernel/pid_max", O_WRONLY);
    if (fd < 0)
        return -errno;
    int r = write(fd, v, strlen(v));
    int e = errno;
    close(fd);
    return r < 0 ? -e : 0;
}

int main(void)
{
    char buf[32] = { 0 };
    int fd = open("/proc/sys/kernel/pid_max", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    out("pid_max: %s", buf);
    int r = set_pid_max("300\n");
    out("set 300: %s", r ? errname(-r) : "ok");
    r = set_pid_max("4194305\n");
    out("set 4194305: %s", r ? errname(-r) : "ok");
    r = set_pid_max("many\n");
    out("set 'many': %s", r ? errname(-r) : "ok");
    r = set_pid_max("400\n");
    out("set 400: %s", r ? errname(-r) : "ok");

    /* A child that stays alive keeps its id out of the next round. */
    int p[2];
    pipe(p);
    pid_t keeper = fork();
    if (keeper == 0) {
        char c;
        close(p[1]);
        read(p[0], &c, 1);
        _exit(0);
    }
    close(p[0]);
    int below = 1, low = 0, reused_keeper = 0, failed = 0;
    /* Enough forks to pass 400 and wrap from wherever the counter
     * stands (a small image has used few ids; Linux's boot many). */
    for (int i = 0; i < 700; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        if (pid < 0) {
            failed++;
            continue;
        }
        if (pid >= 400)
            below = 0;
        if (pid > 300 && pid < 400)
            low = 1;
        if (pid == keeper)
            reused_keeper = 1;
        waitpid(pid, NULL, 0);
    }
    out("forks failed: %d", failed);
    out("every new pid below 400: %s", yesno(below));
    out("ids wrapped to 301..399: %s", yesno(low));
    out("a live child's id handed out again: %s", yesno(reused_keeper));
    close(p[1]);
    waitpid(keeper, NULL, 0);
    r = set_pid_max("32768\n");
    out("set 32768 back: %s", r ? errname(-r) : "ok");
    if (fork() == 0)
        _exit(0);
    wait(NULL);
    return 0;
}
