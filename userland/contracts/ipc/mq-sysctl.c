/* /proc/sys/fs/mqueue written by root: the bounds (msg_max 1..65536,
 * msgsize_max 128..16 MiB, queues_max any int), msg_default and
 * msgsize_default giving mq_open's default attributes, msg_max bounding
 * what a user without CAP_SYS_RESOURCE asks (EINVAL) and queues_max the
 * queues such a user may make (ENOSPC); root is not bound by either. The
 * values are put back at the end. */
#include "ipc.h"
#include <mqueue.h>
#include <sys/wait.h>

#define D "/proc/sys/fs/mqueue/"

static void put(const char *name, const char *value)
{
    char path[128], label[128];
    snprintf(path, sizeof path, D "%s", name);
    snprintf(label, sizeof label, "write %s %s", name, value);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    long r = write(fd, value, strlen(value));
    out("%s: %s", label, r < 0 ? errname(errno) : "ok");
    close(fd);
}

static void get(const char *name)
{
    char path[128], buf[64];
    snprintf(path, sizeof path, D "%s", name);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    out("%s = %s", name, n < 0 ? errname(errno) : buf);
}

static void as_user(const char *label, long maxmsg)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setuid(1000) < 0)
            _exit(2);
        struct mq_attr a = {0, maxmsg, 64, 0};
        mqd_t q = mq_open("/kevlar-mq-sysctl-user", O_RDWR | O_CREAT, 0600, &a);
        out("%s: %s", label, q < 0 ? errname(errno) : "ok");
        if (q >= 0)
            mq_unlink("/kevlar-mq-sysctl-user");
        _exit(0);
    }
    int ws;
    waitpid(pid, &ws, 0);
}

int main(void)
{
    mq_unlink("/kevlar-mq-sysctl");
    mq_unlink("/kevlar-mq-sysctl-user");
    put("msg_max", "0");
    put("msg_max", "65537");
    put("msg_max", "65536");
    get("msg_max");
    put("msgsize_max", "127");
    put("msgsize_max", "16777217");
    put("msgsize_default", "127");
    put("msg_default", "0");
    put("queues_max", "-1");
    get("queues_max");

    put("msg_default", "5");
    put("msgsize_default", "256");
    mqd_t q = mq_open("/kevlar-mq-sysctl", O_RDWR | O_CREAT, 0600, NULL);
    struct mq_attr a;
    if (q >= 0 && mq_getattr(q, &a) == 0)
        out("default attributes: maxmsg %ld msgsize %ld", (long)a.mq_maxmsg, (long)a.mq_msgsize);
    else
        out("mq_open: %s", errname(errno));
    mq_close(q);
    mq_unlink("/kevlar-mq-sysctl");

    put("msg_max", "3");
    as_user("uid 1000 maxmsg 4 with msg_max 3", 4);
    as_user("uid 1000 maxmsg 3 with msg_max 3", 3);
    struct mq_attr big = {0, 4, 64, 0};
    q = mq_open("/kevlar-mq-sysctl", O_RDWR | O_CREAT, 0600, &big);
    out("root maxmsg 4 with msg_max 3: %s", q < 0 ? errname(errno) : "ok");
    mq_close(q);
    mq_unlink("/kevlar-mq-sysctl");

    put("queues_max", "0");
    as_user("uid 1000 with queues_max 0", 2);
    q = mq_open("/kevlar-mq-sysctl", O_RDWR | O_CREAT, 0600, NULL);
    out("root with queues_max 0: %s", q < 0 ? errname(errno) : "ok");
    mq_close(q);
    mq_unlink("/kevlar-mq-sysctl");

    put("msg_max", "10");
    put("msg_default", "10");
    put("msgsize_default", "8192");
    put("queues_max", "256");
    return 0;
}
