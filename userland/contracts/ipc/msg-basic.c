/* SysV message queues: sending and receiving by type (0, exact, negative
 * for the lowest type up to a bound, MSG_EXCEPT), E2BIG and MSG_NOERROR,
 * MSG_COPY by position, IPC_NOWAIT, IPC_STAT counters, a receiver blocked
 * until a child sends, a full queue, and IPC_RMID. */
#include "ipc.h"
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/wait.h>

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

struct m { long type; char text[64]; };

static void snd(int q, long type, const char *text)
{
    struct m m = {type, {0}};
    strcpy(m.text, text);
    char label[64];
    snprintf(label, sizeof label, "send %ld %s", type, text);
    check(label, msgsnd(q, &m, strlen(text) + 1, IPC_NOWAIT));
}

static void rcv(int q, size_t size, long type, int flags, const char *label)
{
    struct m m;
    memset(&m, 0, sizeof m);
    ssize_t r = msgrcv(q, &m, size, type, flags);
    if (r < 0)
        out("%s: -1 %s", label, errname(errno));
    else
        out("%s: %zd type %ld text '%.*s'", label, r, m.type, (int)r, m.text);
}

static void stat_q(int q, const char *label)
{
    struct msqid_ds ds;
    if (msgctl(q, IPC_STAT, &ds) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: qnum %lu cbytes %lu qbytes %lu mode %o", label, (unsigned long)ds.msg_qnum,
        (unsigned long)ds.__msg_cbytes, (unsigned long)ds.msg_qbytes, ds.msg_perm.mode);
}

int main(void)
{
    int q = msgget(IPC_PRIVATE, 0640);
    out("msgget: %s", q >= 0 ? "ok" : errname(errno));
    stat_q(q, "empty");
    snd(q, 3, "three");
    snd(q, 1, "one");
    snd(q, 2, "two");
    snd(q, 1, "uno");
    stat_q(q, "four queued");
    rcv(q, 64, 0, MSG_COPY | IPC_NOWAIT, "copy 0");
    rcv(q, 64, 3, MSG_COPY | IPC_NOWAIT, "copy 3");
    rcv(q, 64, 4, MSG_COPY | IPC_NOWAIT, "copy 4");
    rcv(q, 64, 0, MSG_COPY, "copy without nowait");
    rcv(q, 64, 0, MSG_COPY | MSG_EXCEPT | IPC_NOWAIT, "copy with except");
    rcv(q, 2, 3, IPC_NOWAIT, "type 3 into 2 bytes");
    rcv(q, 2, 3, IPC_NOWAIT | MSG_NOERROR, "type 3 noerror");
    rcv(q, 64, 1, MSG_EXCEPT | IPC_NOWAIT, "except 1");
    rcv(q, 64, -5, IPC_NOWAIT, "lowest up to 5");
    rcv(q, 64, 9, IPC_NOWAIT, "type 9");
    rcv(q, 64, 0, IPC_NOWAIT, "any");
    rcv(q, 64, 0, IPC_NOWAIT, "empty queue");
    stat_q(q, "drained");

    /* A receiver blocks until a child sends. */
    pid_t pid = fork();
    if (pid == 0) {
        struct m m = {7, "late"};
        msgsnd(q, &m, 5, 0);
        _exit(0);
    }
    rcv(q, 64, 7, 0, "blocking receive");
    int st;
    waitpid(pid, &st, 0);

    /* A full queue: IPC_NOWAIT fails, a blocked sender goes on once a
     * receiver makes room. */
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 10;
    check("qbytes 10", msgctl(q, IPC_SET, &ds));
    snd(q, 1, "12345678");
    snd(q, 1, "abc");
    pid = fork();
    if (pid == 0) {
        struct m m = {2, "abc"};
        _exit(msgsnd(q, &m, 4, 0) == 0 ? 0 : errno);
    }
    out("child asleep: %s", yesno(wait_sleeping(pid)));
    rcv(q, 64, 1, 0, "make room");
    waitpid(pid, &st, 0);
    out("child's send: %s", wstatus(st));
    stat_q(q, "after blocked send");

    /* IPC_RMID wakes a blocked receiver with EIDRM. */
    pid = fork();
    if (pid == 0) {
        rcv(q, 64, 99, 0, "child waiting for 99");
        _exit(0);
    }
    out("child asleep: %s", yesno(wait_sleeping(pid)));
    int rm = msgctl(q, IPC_RMID, 0);
    waitpid(pid, &st, 0);
    check("rmid", rm);
    stat_q(q, "removed");
    check("send to removed", msgsnd(q, &(struct m){1, "x"}, 1, 0));
    return 0;
}
