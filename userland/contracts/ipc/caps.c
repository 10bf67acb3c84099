/* The capabilities System V IPC and POSIX message queues honour, as uid
 * 1000 keeping exactly one: CAP_IPC_OWNER reads, writes and stats root's
 * 0600 objects but may not remove or change them; CAP_SYS_ADMIN removes
 * and changes them (IPC_SET, IPC_RMID) but not read them; CAP_SYS_RESOURCE
 * raises msg_qbytes past msgmnb and POSIX queue attributes past
 * msg_max; CAP_IPC_LOCK locks another's segment (SHM_LOCK); CAP_FOWNER
 * unlinks another's POSIX queue. */
#include "../perm/perm.h"
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>

#define CAP_FOWNER_ 3
#define CAP_IPC_LOCK_ 14
#define CAP_IPC_OWNER_ 15

static int q, s, h;
static struct msqid_ds root_ds;

static void try_all(const char *name, int cap)
{
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, cap);
        out("-- %s", name);
        struct { long t; char x[8]; } m = {1, "abc"};
        check("msgsnd", msgsnd(q, &m, 3, IPC_NOWAIT));
        check("msgrcv", msgrcv(q, &m, 8, 0, IPC_NOWAIT));
        struct msqid_ds ds;
        check("msg IPC_STAT", msgctl(q, IPC_STAT, &ds));
        ds = root_ds;
        ds.msg_qbytes = 20000;
        check("raise msg_qbytes", msgctl(q, IPC_SET, &ds));
        ds.msg_qbytes = 16384;
        check("msg IPC_SET", msgctl(q, IPC_SET, &ds));
        check("semctl GETVAL", semctl(s, 0, GETVAL));
        struct sembuf b = {0, 1, IPC_NOWAIT};
        check("semop", semop(s, &b, 1));
        void *p = shmat(h, 0, 0);
        out("shmat: %s", p == (void *)-1 ? errname(errno) : "ok");
        if (p != (void *)-1)
            shmdt(p);
        check("SHM_LOCK", shmctl(h, SHM_LOCK, 0));
        check("SHM_UNLOCK", shmctl(h, SHM_UNLOCK, 0));
        struct mq_attr a = {0, 20, 64, 0};
        mqd_t mq = mq_open("/kevlar-caps-user", O_RDWR | O_CREAT, 0600, &a);
        out("mq maxmsg 20: %s", mq < 0 ? errname(errno) : "ok");
        mq_unlink("/kevlar-caps-user");
        check("mq_unlink root's", mq_unlink("/kevlar-caps-root"));
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        out("child: %s", wstatus(st));
}

static void fresh(void)
{
    q = msgget(IPC_PRIVATE, 0600);
    msgctl(q, IPC_STAT, &root_ds);
    s = semget(IPC_PRIVATE, 1, 0600);
    h = shmget(IPC_PRIVATE, 4096, 0600);
    mq_unlink("/kevlar-caps-root");
    mqd_t mq = mq_open("/kevlar-caps-root", O_RDWR | O_CREAT, 0600, 0);
    close(mq);
}

static void cleanup(void)
{
    msgctl(q, IPC_RMID, 0);
    semctl(s, 0, IPC_RMID);
    shmctl(h, IPC_RMID, 0);
    mq_unlink("/kevlar-caps-root");
}

int main(void)
{
    const struct { const char *name; int cap; } cases[] = {
        {"no capability", NO_CAP},
        {"CAP_IPC_OWNER", CAP_IPC_OWNER_},
        {"CAP_SYS_ADMIN", CAP_SYS_ADMIN_},
        {"CAP_SYS_RESOURCE", CAP_SYS_RESOURCE_},
        {"CAP_IPC_LOCK", CAP_IPC_LOCK_},
        {"CAP_FOWNER", CAP_FOWNER_},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        fresh();
        try_all(cases[i].name, cases[i].cap);
        cleanup();
    }
    return 0;
}
