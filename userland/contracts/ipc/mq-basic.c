/* POSIX message queues: mq_open creating and opening by name, priority
 * order (FIFO within a priority), mq_getattr/mq_setattr (O_NONBLOCK only),
 * EAGAIN on an empty or full non-blocking queue, timeouts (ETIMEDOUT), a
 * receiver blocked until a child sends, poll readiness, the text read()
 * gives, close-on-exec descriptors, and mq_unlink leaving open
 * descriptors working. */
#include "ipc.h"
#include <mqueue.h>
#include <poll.h>
#include <sys/wait.h>

static void attr(mqd_t q, const char *label)
{
    struct mq_attr a;
    if (mq_getattr(q, &a) < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: flags %lx maxmsg %ld msgsize %ld curmsgs %ld", label, (long)a.mq_flags, (long)a.mq_maxmsg,
            (long)a.mq_msgsize, (long)a.mq_curmsgs);
}

static void rcv(mqd_t q, const char *label)
{
    char buf[128];
    unsigned prio = 99;
    ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
    if (n < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %zd prio %u '%.*s'", label, n, prio, (int)n, buf);
}

static short revents(int fd)
{
    struct pollfd p = {fd, POLLIN | POLLOUT, 0};
    poll(&p, 1, 0);
    return p.revents;
}

int main(void)
{
    mq_unlink("/kevlar-mq-basic");
    struct mq_attr a = {0, 4, 128, 0};
    mqd_t q = mq_open("/kevlar-mq-basic", O_RDWR | O_CREAT | O_EXCL, 0600, &a);
    out("mq_open: %s", q < 0 ? errname(errno) : "ok");
    out("close-on-exec: %s", yesno(fcntl(q, F_GETFD) & FD_CLOEXEC));
    attr(q, "new");
    out("poll empty: in %s out %s", yesno(revents(q) & POLLIN), yesno(revents(q) & POLLOUT));
    check("send a/1", mq_send(q, "a", 1, 1));
    check("send b/5", mq_send(q, "bb", 2, 5));
    check("send c/1", mq_send(q, "ccc", 3, 1));
    check("send d/5", mq_send(q, "dddd", 4, 5));
    attr(q, "four");
    out("poll full: in %s out %s", yesno(revents(q) & POLLIN), yesno(revents(q) & POLLOUT));
    char text[128];
    ssize_t n = read(q, text, sizeof text);
    out("read: %.*s", (int)(n > 0 ? n - 1 : 0), text);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    check("timed send to a full queue", mq_timedsend(q, "e", 1, 0, &ts));
    struct mq_attr nb = {O_NONBLOCK, 0, 0, 0}, old;
    check("setattr nonblock", mq_setattr(q, &nb, &old));
    out("old flags %lx", (long)old.mq_flags);
    check("send to a full queue", mq_send(q, "e", 1, 0));
    attr(q, "nonblocking");
    rcv(q, "first");
    rcv(q, "second");
    rcv(q, "third");
    rcv(q, "fourth");
    rcv(q, "empty");
    out("poll drained: in %s out %s", yesno(revents(q) & POLLIN), yesno(revents(q) & POLLOUT));
    nb.mq_flags = 0;
    mq_setattr(q, &nb, 0);
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    n = mq_timedreceive(q, text, sizeof text, 0, &ts);
    out("timed receive from empty: %s", n < 0 ? errname(errno) : "got one");
    ts.tv_sec = 0; ts.tv_nsec = 0;
    n = mq_timedreceive(q, text, sizeof text, 0, &ts);
    out("timeout in the past: %s", n < 0 ? errname(errno) : "got one");

    /* A receiver waits for a child's message; the child opens by name. */
    pid_t pid = fork();
    if (pid == 0) {
        mqd_t c = mq_open("/kevlar-mq-basic", O_WRONLY);
        _exit(c >= 0 && mq_send(c, "late", 4, 3) == 0 ? 0 : 1);
    }
    rcv(q, "blocking receive");
    int st;
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));

    /* Unlinked: the name is gone, the descriptor still works. */
    check("unlink", mq_unlink("/kevlar-mq-basic"));
    check("unlink again", mq_unlink("/kevlar-mq-basic"));
    out("open unlinked: %s", mq_open("/kevlar-mq-basic", O_RDWR) < 0 ? errname(errno) : "ok");
    check("send after unlink", mq_send(q, "z", 1, 0));
    rcv(q, "receive after unlink");
    mqd_t r = mq_open("/kevlar-mq-basic", O_RDWR | O_CREAT, 0600, 0);
    out("recreated: %s", r < 0 ? errname(errno) : "ok");
    attr(r, "defaults");
    mq_unlink("/kevlar-mq-basic");
    return 0;
}
