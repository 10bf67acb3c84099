/* SysV message queue errors: msgget by key (ENOENT, EEXIST, reuse), the
 * argument checks of msgsnd, msgrcv and msgctl (EINVAL, EFAULT), a signal
 * interrupting a blocked msgrcv (EINTR), IPC_INFO/MSG_INFO values,
 * MSG_STAT by index, and the permission rules for uid 1000 (EACCES for
 * mode bits, EPERM for IPC_SET/IPC_RMID and raising msg_qbytes). */
#include "ipc.h"
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/wait.h>

#ifndef MSG_STAT_ANY
#define MSG_STAT_ANY 13
#endif

static void on_alarm(int sig) { (void)sig; }

int main(void)
{
    key_t key = 0x4b455601;
    msgctl(msgget(key, 0), IPC_RMID, 0);
    check("get missing key", msgget(key, 0600));
    int q = msgget(key, IPC_CREAT | 0600);
    check("create", q);
    out("same key same id: %s", yesno(msgget(key, 0) == q));
    out("IPC_CREAT again: %s", yesno(msgget(key, IPC_CREAT | 0666) == q));
    check("IPC_EXCL", msgget(key, IPC_CREAT | IPC_EXCL | 0600));
    out("private differs: %s", yesno(msgget(IPC_PRIVATE, 0600) != q));

    struct { long type; char text[16]; } m = {0, "x"};
    check("mtype 0", msgsnd(q, &m, 1, IPC_NOWAIT));
    m.type = -1;
    check("mtype -1", msgsnd(q, &m, 1, IPC_NOWAIT));
    m.type = 1;
    check("size past msgmax", msgsnd(q, &m, 8193, IPC_NOWAIT));
    check("negative id", msgsnd(-1, &m, 1, IPC_NOWAIT));
    check("stale sequence", msgsnd(q + 32768, &m, 1, IPC_NOWAIT));
    rcheck("bad msgp", rawsys(SYS_msgsnd, q, 8, 1, IPC_NOWAIT, 0, 0));
    char *page = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(page + 4096, 4096);
    *(long *)(page + 4088) = 1;
    rcheck("text on an unmapped page", rawsys(SYS_msgsnd, q, (long)(page + 4088), 16, IPC_NOWAIT, 0, 0));
    check("zero-length message", msgsnd(q, &m, 0, IPC_NOWAIT));
    out("receive it: %zd", msgrcv(q, &m, 16, 0, IPC_NOWAIT));
    check("receive negative size", msgrcv(q, &m, (size_t)-1, 0, IPC_NOWAIT));
    check("msgctl bad cmd", msgctl(q, 99, 0));
    check("msgctl IPC_64 cmd", syscall(SYS_msgctl, q, 0x100 | IPC_STAT, &m));
    check("msgctl negative id", msgctl(-5, IPC_STAT, 0));
    rcheck("IPC_STAT to bad buffer", rawsys(SYS_msgctl, q, IPC_STAT, 16, 0, 0, 0));
    rcheck("IPC_SET from bad buffer", rawsys(SYS_msgctl, q, IPC_SET, 16, 0, 0, 0));

    struct msginfo info;
    long r = msgctl(0, IPC_INFO, (struct msqid_ds *)&info);
    out("IPC_INFO: %s msgmax %d msgmnb %d msgmni %d msgssz %d msgseg %u pool %d map %d tql %d",
        r >= 0 ? "ok" : errname(errno), info.msgmax, info.msgmnb, info.msgmni, info.msgssz,
        info.msgseg, info.msgpool, info.msgmap, info.msgtql);
    m.type = 5;
    msgsnd(q, &m, 3, IPC_NOWAIT);
    r = msgctl(0, MSG_INFO, (struct msqid_ds *)&info);
    out("MSG_INFO: %s map>=1 %s tql>=3 %s pool>=2 %s", r >= 0 ? "ok" : errname(errno),
        yesno(info.msgmap >= 1), yesno(info.msgtql >= 3), yesno(info.msgpool >= 2));
    out("max index covers q: %s", yesno(r >= (q & 0x7fff)));
    struct msqid_ds ds;
    out("MSG_STAT by index gives the id: %s", yesno(msgctl(q & 0x7fff, MSG_STAT, &ds) == q));
    out("MSG_STAT_ANY too: %s", yesno(msgctl(q & 0x7fff, MSG_STAT_ANY, &ds) == q));
    check("MSG_STAT of unused index", msgctl(32767, MSG_STAT, &ds));

    /* A blocked msgrcv ends with EINTR when a handler runs, SA_RESTART or
     * not. */
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, 0);
    alarm(1);
    check("msgrcv interrupted", msgrcv(q, &m, 16, 42, 0));

    /* Permissions as uid 1000. */
    int pq = msgget(IPC_PRIVATE, 0604);
    pid_t pid = fork();
    if (pid == 0) {
        if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
            _exit(9);
        m.type = 1;
        check("uid 1000 send to 0600", msgsnd(q, &m, 1, IPC_NOWAIT));
        check("uid 1000 receive from 0600", msgrcv(q, &m, 16, 0, IPC_NOWAIT));
        check("uid 1000 stat 0600", msgctl(q, IPC_STAT, &ds));
        check("uid 1000 MSG_STAT_ANY 0600", msgctl(q & 0x7fff, MSG_STAT_ANY, &ds));
        check("uid 1000 msgget 0600", msgget(key, 0));
        check("uid 1000 msgget asking for read", msgget(key, 0400));
        check("uid 1000 send to 0604", msgsnd(pq, &m, 1, IPC_NOWAIT));
        check("uid 1000 stat 0604", msgctl(pq, IPC_STAT, &ds));
        check("uid 1000 IPC_SET", msgctl(pq, IPC_SET, &ds));
        check("uid 1000 rmid", msgctl(pq, IPC_RMID, 0));
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));

    /* Ownership given away: the new owner may change and remove it, but
     * not raise msg_qbytes past msgmnb. */
    msgctl(pq, IPC_STAT, &ds);
    ds.msg_perm.uid = 1000;
    ds.msg_perm.mode = 0660;
    check("give to uid 1000", msgctl(pq, IPC_SET, &ds));
    msgctl(pq, IPC_STAT, &ds);
    out("uid %u cuid %u mode %o", ds.msg_perm.uid, ds.msg_perm.cuid, ds.msg_perm.mode);
    pid = fork();
    if (pid == 0) {
        if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
            _exit(9);
        msgctl(pq, IPC_STAT, &ds);
        ds.msg_qbytes = 16385;
        check("owner raises qbytes", msgctl(pq, IPC_SET, &ds));
        ds.msg_qbytes = 100;
        check("owner lowers qbytes", msgctl(pq, IPC_SET, &ds));
        check("owner removes", msgctl(pq, IPC_RMID, 0));
        _exit(0);
    }
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));
    check("rmid", msgctl(q, IPC_RMID, 0));
    check("rmid again", msgctl(q, IPC_RMID, 0));
    check("get removed key", msgget(key, 0));
    return 0;
}
