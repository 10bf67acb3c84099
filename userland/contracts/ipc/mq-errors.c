/* POSIX message queue errors: names (EACCES for slashes and empty names,
 * ENAMETOOLONG, ENOENT, EEXIST), attributes (EINVAL beyond msg_max and
 * msgsize_max, zero or negative; only when creating), access modes
 * (EBADF sending on a read-only descriptor and the reverse, EACCES for
 * another user), EMSGSIZE both ways, priorities (EINVAL at MQ_PRIO_MAX),
 * bad timeouts (EINVAL, EFAULT), mq_setattr flags, a signal interrupting
 * a blocked receive (EINTR), /proc/sys/fs/mqueue. */
#include "ipc.h"
#include <mqueue.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void on_alarm(int sig) { (void)sig; }

static void show_file(const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    buf[n] = 0;
    out("%s: %s", path, strtok(buf, "\n"));
}

int main(void)
{
    const char *files[] = {"msg_default", "msg_max", "msgsize_default", "msgsize_max", "queues_max"};
    for (int i = 0; i < 5; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/sys/fs/mqueue/%s", files[i]);
        show_file(path);
    }
    rcheck("raw name with a slash", rawsys(SYS_mq_open, (long)"a/b", O_RDWR | O_CREAT, 0600, 0, 0, 0));
    rcheck("raw empty name", rawsys(SYS_mq_open, (long)"", O_RDWR | O_CREAT, 0600, 0, 0, 0));
    rcheck("raw dot", rawsys(SYS_mq_open, (long)".", O_RDWR | O_CREAT, 0600, 0, 0, 0));
    rcheck("raw bad name pointer", rawsys(SYS_mq_open, 16, O_RDWR | O_CREAT, 0600, 0, 0, 0));
    char longname[300];
    memset(longname, 'x', sizeof longname);
    longname[0] = '/';
    longname[257] = 0;
    check("256-byte name", mq_open(longname, O_RDWR | O_CREAT, 0600, 0));
    longname[256] = 0;
    mqd_t l = mq_open(longname, O_RDWR | O_CREAT, 0600, 0);
    check("255-byte name", l);
    mq_unlink(longname);
    close(l);

    mq_unlink("/kevlar-mq-errors");
    check("open missing", mq_open("/kevlar-mq-errors", O_RDWR));
    struct mq_attr a = {0, 11, 64, 0};
    check("maxmsg 11 as root", mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0600, &a));
    mq_unlink("/kevlar-mq-errors");
    a.mq_maxmsg = 65537;
    check("maxmsg 65537", mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0600, &a));
    a.mq_maxmsg = 0;
    check("maxmsg 0", mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0600, &a));
    a.mq_maxmsg = 2; a.mq_msgsize = -1;
    check("msgsize -1", mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0600, &a));
    a.mq_msgsize = 16 * 1024 * 1024 + 1;
    check("msgsize past the hard limit", mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0600, &a));
    rcheck("bad attr pointer", rawsys(SYS_mq_open, (long)"kevlar-mq-errors", O_RDWR | O_CREAT, 0600, 16, 0, 0));
    a.mq_maxmsg = 2; a.mq_msgsize = 16;
    mqd_t q = mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0640, &a);
    check("create", q);
    check("O_EXCL", mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT | O_EXCL, 0600, &a));
    a.mq_maxmsg = 0;
    mqd_t again = mq_open("/kevlar-mq-errors", O_RDWR | O_CREAT, 0600, &a);
    out("bad attr ignored for an existing queue: %s", again < 0 ? errname(errno) : "ok");
    close(again);
    check("O_WRONLY|O_RDWR", mq_open("/kevlar-mq-errors", O_WRONLY | O_RDWR));

    char buf[64] = "0123456789abcdefXYZ";
    check("17 bytes into 16", mq_send(q, buf, 17, 0));
    check("prio 32768", mq_send(q, buf, 1, 32768));
    check("prio 32767", mq_send(q, buf, 1, 32767));
    check("receive into 15", mq_receive(q, buf, 15, 0));
    struct timespec bad = {0, 1000000000};
    check("tv_nsec 1e9", mq_timedreceive(q, buf, 64, 0, &bad));
    check("tv_nsec 1e9 send", mq_timedsend(q, buf, 1, 0, &bad));
    rcheck("bad timeout pointer", rawsys(SYS_mq_timedreceive, q, (long)buf, 64, 0, 16, 0));
    rcheck("bad message pointer", rawsys(SYS_mq_timedsend, q, 16, 4, 0, 0, 0));
    rcheck("bad receive buffer", rawsys(SYS_mq_timedreceive, q, 16, 64, 0, 0, 0));
    check("send to a non-queue", mq_send(0, buf, 1, 0));
    check("send to a bad fd", mq_send(-1, buf, 1, 0));
    check("getattr of a non-queue", mq_getattr(1, &a));
    struct mq_attr flags = {O_NONBLOCK | O_APPEND, 0, 0, 0};
    check("setattr O_APPEND", mq_setattr(q, &flags, 0));
    mqd_t ro = mq_open("/kevlar-mq-errors", O_RDONLY);
    mqd_t wo = mq_open("/kevlar-mq-errors", O_WRONLY);
    check("send on read-only", mq_send(ro, buf, 1, 0));
    check("receive on write-only", mq_receive(wo, buf, 64, 0));

    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, 0);
    alarm(1);
    check("receive interrupted", mq_receive(ro, buf, 64, 0));

    pid_t pid = fork();
    if (pid == 0) {
        if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
            _exit(9);
        check("uid 1000 open 0640 read", mq_open("/kevlar-mq-errors", O_RDONLY));
        check("uid 1000 unlink", mq_unlink("/kevlar-mq-errors"));
        struct mq_attr big = {0, 11, 64, 0};
        check("uid 1000 maxmsg 11", mq_open("/kevlar-mq-user", O_RDWR | O_CREAT, 0600, &big));
        big.mq_maxmsg = 10; big.mq_msgsize = 8193;
        check("uid 1000 msgsize 8193", mq_open("/kevlar-mq-user", O_RDWR | O_CREAT, 0600, &big));
        big.mq_msgsize = 8192;
        mqd_t u = mq_open("/kevlar-mq-user", O_RDWR | O_CREAT, 0600, &big);
        check("uid 1000 at the limits", u);
        check("uid 1000 unlinks its own", mq_unlink("/kevlar-mq-user"));
        /* RLIMIT_MSGQUEUE (819200 bytes): queues of the largest size
         * until it runs out. */
        int made = 0;
        for (int i = 0; i < 20; i++) {
            char name[32];
            snprintf(name, sizeof name, "/kevlar-mq-lim%d", i);
            mqd_t m = mq_open(name, O_RDWR | O_CREAT, 0600, &big);
            if (m < 0) {
                out("queue %d: %s", i, errname(errno));
                break;
            }
            made++;
        }
        out("made %d", made);
        for (int i = 0; i < made; i++) {
            char name[32];
            snprintf(name, sizeof name, "/kevlar-mq-lim%d", i);
            mq_unlink(name);
        }
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));
    check("unlink", mq_unlink("/kevlar-mq-errors"));
    return 0;
}
