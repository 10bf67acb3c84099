/* /proc/PID/limits: the header, one line per resource in RLIMIT order with
 * Linux's names and units, soft and hard limits ("unlimited" for
 * RLIM_INFINITY), and the width of each line: the unit column is padded
 * only where a resource has a unit (nice and rtprio have none, so their
 * lines are shorter than the header; pam_limits parses the file by that
 * length). The limits are set first so the whole file is deterministic. */
#include "../common.h"
#include <sys/resource.h>

static void show_limits(const char *path)
{
    char text[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("open %s: %s", path, errname(errno));
        return;
    }
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    if (n < 0) {
        out("read %s: %s", path, errname(errno));
        return;
    }
    text[n] = 0;
    out("%s: %zd bytes, ends in newline: %s", path, n, yesno(n > 0 && text[n - 1] == '\n'));
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        /* '|' marks the end of the line so trailing blanks show. */
        out("%3zu %s|", strlen(line), line);
        if (!end)
            break;
        line = end + 1;
    }
}

int main(void)
{
    static const struct {
        int resource;
        rlim_t soft, hard;
    } set[] = {
        {RLIMIT_CPU, RLIM_INFINITY, RLIM_INFINITY},
        {RLIMIT_FSIZE, 1 << 30, RLIM_INFINITY},
        {RLIMIT_DATA, RLIM_INFINITY, RLIM_INFINITY},
        {RLIMIT_STACK, 8 << 20, RLIM_INFINITY},
        {RLIMIT_CORE, 0, RLIM_INFINITY},
        {RLIMIT_RSS, RLIM_INFINITY, RLIM_INFINITY},
        {RLIMIT_NPROC, 3000, 4000},
        {RLIMIT_NOFILE, 1024, 4096},
        {RLIMIT_MEMLOCK, 65536, 131072},
        {RLIMIT_AS, RLIM_INFINITY, RLIM_INFINITY},
        {RLIMIT_LOCKS, RLIM_INFINITY, RLIM_INFINITY},
        {RLIMIT_SIGPENDING, 1000, 2000},
        {RLIMIT_MSGQUEUE, 819200, 819200},
        {RLIMIT_NICE, 0, 10},
        {RLIMIT_RTPRIO, 0, 5},
        {RLIMIT_RTTIME, RLIM_INFINITY, RLIM_INFINITY},
    };
    for (unsigned i = 0; i < sizeof set / sizeof set[0]; i++) {
        struct rlimit rl = {set[i].soft, set[i].hard};
        if (setrlimit(set[i].resource, &rl))
            out("setrlimit %d: %s", set[i].resource, errname(errno));
    }
    show_limits("/proc/self/limits");

    /* Another process's file reads the same way (pam_limits reads
     * /proc/1/limits): a child's, with its own soft nice limit. */
    pid_t child = fork();
    if (child == 0) {
        struct rlimit rl = {7, 10};
        setrlimit(RLIMIT_NICE, &rl);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/limits", (int)getpid());
        int fd = open(path, O_RDONLY);
        char text[4096];
        ssize_t n = fd < 0 ? -1 : read_full(fd, text, sizeof text - 1);
        if (n < 0)
            _exit(1);
        text[n] = 0;
        const char *nice = strstr(text, "Max nice priority");
        const char *end = nice ? strchr(nice, '\n') : NULL;
        if (nice && end)
            out("child's nice line: %.*s|", (int)(end - nice), nice);
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    out("child exit %d", WEXITSTATUS(status));
    return 0;
}
