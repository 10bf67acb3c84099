/* mq_notify with SIGEV_THREAD through the C library: the function runs
 * (in a new thread) with the sigval when a message reaches the empty
 * queue, once. */
#include "ipc.h"
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

static int pipefd[2];

static void fn(union sigval v)
{
    char c = (char)v.sival_int;
    write(pipefd[1], &c, 1);
}

int main(void)
{
    mq_unlink("/kevlar-mq-thread");
    mqd_t q = mq_open("/kevlar-mq-thread", O_RDWR | O_CREAT, 0600, NULL);
    out("mq_open: %s", q < 0 ? errname(errno) : "ok");
    pipe(pipefd);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_notify_function = fn;
    ev.sigev_value.sival_int = 'x';
    check("mq_notify", mq_notify(q, &ev));
    check("send", mq_send(q, "m", 1, 0));
    struct pollfd p = {pipefd[0], POLLIN, 0};
    int ready = poll(&p, 1, 10000);
    char c = 0;
    if (ready == 1)
        read(pipefd[0], &c, 1);
    out("function ran: %s with '%c'", yesno(ready == 1), c ? c : '-');
    char buf[8192];
    mq_receive(q, buf, sizeof buf, NULL);
    check("send again", mq_send(q, "m", 1, 0));
    ready = poll(&p, 1, 300);
    out("ran again: %s", yesno(ready == 1));
    mq_close(q);
    mq_unlink("/kevlar-mq-thread");
    return 0;
}
