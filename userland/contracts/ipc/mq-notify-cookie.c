/* mq_notify with SIGEV_THREAD at the system-call level: the kernel sends
 * the 32-byte cookie (read from sival_ptr at registration) on the netlink
 * socket sigev_signo names, its last byte NOTIFY_WOKENUP (1) when a
 * message reaches the empty queue, NOTIFY_REMOVED (2) when the
 * registration is dropped by mq_notify(NULL) or by closing the queue;
 * the queue's state line shows NOTIFY:2 meanwhile; a socket that is not
 * netlink is EINVAL. */
#include "ipc.h"
#include <mqueue.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>

static void state(mqd_t q, const char *label)
{
    char text[128];
    ssize_t n = read(q, text, sizeof text - 1);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    text[n] = 0;
    /* NOTIFY_PID is the registering pid: not shown. */
    char *pid = strstr(text, " NOTIFY_PID:");
    if (pid)
        *pid = 0;
    out("%s: '%s'", label, text);
}

static void cookie(int s, const char *label)
{
    unsigned char buf[64];
    ssize_t n = recv(s, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    int intact = 1;
    for (int i = 0; i < 31 && i < n; i++)
        if (buf[i] != (unsigned char)(0xa0 + i))
            intact = 0;
    out("%s: %zd bytes, cookie intact %s, last byte %d", label, n, yesno(intact), n >= 32 ? buf[31] : -1);
}

static long reg(mqd_t q, int s, unsigned char *c)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_signo = s;
    ev.sigev_value.sival_ptr = c;
    return rawsys(SYS_mq_notify, q, (long)&ev, 0, 0, 0, 0);
}

int main(void)
{
    unsigned char c[32];
    for (int i = 0; i < 32; i++)
        c[i] = 0xa0 + i;
    mq_unlink("/kevlar-mq-cookie");
    mqd_t q = mq_open("/kevlar-mq-cookie", O_RDWR | O_CREAT, 0600, NULL);
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0 /* NETLINK_ROUTE */);
    out("setup: %s %s", q < 0 ? errname(errno) : "ok", s < 0 ? errname(errno) : "ok");
    int u = socket(AF_UNIX, SOCK_DGRAM, 0);
    rcheck("SIGEV_THREAD on a unix socket", reg(q, u, c));
    close(u);

    rcheck("register", reg(q, s, c));
    state(q, "registered");
    cookie(s, "before a message");
    check("send", mq_send(q, "m", 1, 0));
    cookie(s, "after a message");
    state(q, "after the notification");
    char buf[8192];
    mq_receive(q, buf, sizeof buf, NULL);

    rcheck("register again", reg(q, s, c));
    rcheck("busy", reg(q, s, c));
    rcheck("unregister", rawsys(SYS_mq_notify, q, 0, 0, 0, 0, 0));
    cookie(s, "after unregistering");

    rcheck("register a third time", reg(q, s, c));
    mq_close(q);
    cookie(s, "after closing the queue");
    cookie(s, "nothing more");
    mq_unlink("/kevlar-mq-cookie");
    return 0;
}
