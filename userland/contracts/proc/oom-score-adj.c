/* /proc/PID/oom_score_adj, oom_adj and oom_score: the values, the range
 * (EINVAL outside -1000..1000, ERANGE past an int), the parsing, the legacy
 * scale, inheritance across fork, and who may lower them: without
 * CAP_SYS_RESOURCE not below the floor a privileged writer last set
 * (oom_score_adj) or below the current value (oom_adj); another user's
 * files are closed (EACCES). */
#include "common.h"
#include <sys/prctl.h>

static void put(const char *file, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/%s", file);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        out("open %s for writing: %s", file, errname(errno));
        return;
    }
    ssize_t n = write(fd, text, strlen(text));
    char shown[40];
    snprintf(shown, sizeof shown, "%s", text);
    for (char *p = shown; *p; p++)
        if (*p == '\n')
            *p = '|';
    if (n < 0)
        out("write %s '%s': %s", file, shown, errname(errno));
    else
        out("write %s '%s': %zd", file, shown, n);
    close(fd);
}

static void get(const char *path)
{
    char buf[64] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("read %s: %s", path, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    out("%s: %s", path, buf);
}

int main(void)
{
    get("/proc/self/oom_score_adj");
    get("/proc/self/oom_adj");
    get("/proc/1/oom_score");
    char buf[32] = {0};
    int fd = open("/proc/self/oom_score", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    int score = atoi(buf);
    out("oom_score within 0..2000: %s", yesno(score >= 0 && score <= 2000));

    put("oom_score_adj", "500");
    get("/proc/self/oom_score_adj");
    get("/proc/self/oom_adj");
    put("oom_score_adj", "1000\n");
    get("/proc/self/oom_adj");
    put("oom_score_adj", "-1000");
    get("/proc/self/oom_adj");
    put("oom_score_adj", "1001");
    put("oom_score_adj", "-1001");
    put("oom_score_adj", "abc");
    put("oom_score_adj", "12abc");
    put("oom_score_adj", "");
    put("oom_score_adj", "99999999999");
    put("oom_score_adj", "  7  \n");
    get("/proc/self/oom_score_adj");
    put("oom_score_adj", "0x10");
    get("/proc/self/oom_score_adj");
    put("oom_score_adj", "010");
    get("/proc/self/oom_score_adj");
    put("oom_score_adj", "-0");
    put("oom_score_adj", "+3");
    get("/proc/self/oom_score_adj");
    put("oom_score_adj", "3                 ");
    put("oom_adj", "-17");
    get("/proc/self/oom_score_adj");
    put("oom_adj", "15");
    get("/proc/self/oom_score_adj");
    put("oom_adj", "16");
    put("oom_adj", "-18");
    put("oom_adj", "4");
    get("/proc/self/oom_score_adj");
    get("/proc/self/oom_adj");

    /* Inherited by a child. */
    put("oom_score_adj", "123");
    pid_t pid = fork();
    if (pid == 0) {
        get("/proc/self/oom_score_adj");
        _exit(0);
    }
    reap("child", pid);

    /* As uid 1000 (dumpable again, so /proc/self is its own): the floor
     * is what root last set. */
    pid = fork();
    if (pid == 0) {
        put("oom_score_adj", "0");
        setgid(1000);
        setuid(1000);
        prctl(PR_SET_DUMPABLE, 1);
        put("oom_score_adj", "100");
        put("oom_score_adj", "50");
        put("oom_score_adj", "0");
        put("oom_score_adj", "-1");
        get("/proc/self/oom_score_adj");
        put("oom_adj", "1");
        get("/proc/self/oom_score_adj");
        put("oom_adj", "0");
        put("oom_adj", "1");
        get("/proc/self/oom_adj");
        int fd = open("/proc/1/oom_score_adj", O_WRONLY);
        out("open init's oom_score_adj for writing: %s", fd < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("uid 1000 child", pid);
    pid = fork();
    if (pid == 0) {
        put("oom_score_adj", "-500");
        setgid(1000);
        setuid(1000);
        prctl(PR_SET_DUMPABLE, 1);
        put("oom_score_adj", "-400");
        put("oom_score_adj", "-600");
        put("oom_score_adj", "-500");
        get("/proc/self/oom_score_adj");
        _exit(0);
    }
    reap("uid 1000 child with a floor", pid);
    return 0;
}
