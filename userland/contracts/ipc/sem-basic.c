/* SysV semaphores: SETVAL/GETVAL/SETALL/GETALL, semop decrementing,
 * waiting for zero, IPC_NOWAIT (EAGAIN), all operations of a call applied
 * together or not at all, semtimedop's timeout, GETPID, GETNCNT and
 * GETZCNT while children sleep, SEM_UNDO applied when a process exits
 * (and cleared by SETVAL), ERANGE, IPC_RMID waking a sleeper (EIDRM). */
#include "ipc.h"
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/wait.h>

union semun { int val; struct semid_ds *buf; unsigned short *array; };

static int s;

static void op(const char *label, int num, int delta, int flags)
{
    struct sembuf b = {num, delta, flags};
    check(label, semop(s, &b, 1));
}

static void vals(const char *label)
{
    unsigned short a[3];
    if (semctl(s, 0, GETALL, (union semun){.array = a}) < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %u %u %u", label, a[0], a[1], a[2]);
}

int main(void)
{
    s = semget(IPC_PRIVATE, 3, 0600);
    out("semget: %s", s >= 0 ? "ok" : errname(errno));
    vals("initial");
    check("setval 0 = 2", semctl(s, 0, SETVAL, (union semun){.val = 2}));
    show("getval 0", semctl(s, 0, GETVAL));
    unsigned short init[3] = {2, 0, 5};
    check("setall", semctl(s, 0, SETALL, (union semun){.array = init}));
    vals("after setall");
    out("getpid is me: %s", yesno(semctl(s, 1, GETPID) == getpid()));
    op("take 2 from 0", 0, -2, 0);
    op("take 1 more, nowait", 0, -1, IPC_NOWAIT);
    op("wait for zero on 1, nowait", 1, 0, IPC_NOWAIT);
    op("wait for zero on 0, nowait", 0, 0, IPC_NOWAIT);
    struct sembuf two[2] = {{2, -1, 0}, {0, -1, IPC_NOWAIT}};
    check("two ops, second blocks", semop(s, two, 2));
    vals("unchanged");
    struct sembuf ok2[2] = {{2, -1, 0}, {1, 3, 0}};
    check("two ops", semop(s, ok2, 2));
    vals("both applied");
    struct timespec ts = {0, 50 * 1000 * 1000};
    struct sembuf t = {0, -1, 0};
    check("semtimedop times out", semtimedop(s, &t, 1, &ts));
    op("past SEMVMX", 2, 32767, 0);

    /* Children waiting: one to decrement, one for zero. */
    pid_t dec = fork();
    if (dec == 0) {
        struct sembuf b = {0, -1, 0};
        _exit(semop(s, &b, 1) == 0 ? 0 : errno);
    }
    out("decrementer asleep: %s", yesno(wait_sleeping(dec)));
    pid_t zero = fork();
    if (zero == 0) {
        struct sembuf b = {1, 0, 0};
        _exit(semop(s, &b, 1) == 0 ? 0 : errno);
    }
    out("zero waiter asleep: %s", yesno(wait_sleeping(zero)));
    show("ncnt 0", semctl(s, 0, GETNCNT));
    show("zcnt 1", semctl(s, 1, GETZCNT));
    show("ncnt 1", semctl(s, 1, GETNCNT));
    int st;
    op("give 1 to 0", 0, 1, 0);
    waitpid(dec, &st, 0);
    out("decrementer: %s", wstatus(st));
    check("setval 1 = 0", semctl(s, 1, SETVAL, (union semun){.val = 0}));
    waitpid(zero, &st, 0);
    out("zero waiter: %s", wstatus(st));
    show("ncnt 0 after", semctl(s, 0, GETNCNT));
    out("getpid is the child: %s", yesno(semctl(s, 0, GETPID) == dec));
    vals("after children");

    /* SEM_UNDO: a child's operations are undone when it exits. */
    pid_t u = fork();
    if (u == 0) {
        struct sembuf b[2] = {{0, 4, SEM_UNDO}, {2, -2, SEM_UNDO}};
        out("child undoable ops: %s", semop(s, b, 2) == 0 ? "ok" : errname(errno));
        struct sembuf c = {1, 1, 0};
        semop(s, &c, 1);
        _exit(0);
    }
    waitpid(u, &st, 0);
    vals("after undo at exit");
    u = fork();
    if (u == 0) {
        struct sembuf b[2] = {{0, 4, SEM_UNDO}, {2, 5, SEM_UNDO}};
        semop(s, b, 2);
        /* SETVAL clears the adjustment of that semaphore. */
        semctl(s, 0, SETVAL, (union semun){.val = 10});
        _exit(0);
    }
    waitpid(u, &st, 0);
    vals("after SETVAL then exit");
    /* The adjustment is clamped at 0. */
    u = fork();
    if (u == 0) {
        struct sembuf b = {0, 3, SEM_UNDO};
        semop(s, &b, 1);
        semctl(s, 0, SETALL, (union semun){.array = (unsigned short[]){1, 1, 1}});
        struct sembuf c = {1, 5, SEM_UNDO};
        semop(s, &c, 1);
        semctl(s, 1, SETVAL, (union semun){.val = 2});
        struct sembuf d = {2, 7, SEM_UNDO};
        semop(s, &d, 1);
        semctl(s, 2, SETVAL, (union semun){.val = 3});
        _exit(0);
    }
    waitpid(u, &st, 0);
    vals("clamped");

    /* IPC_RMID wakes a sleeper with EIDRM. */
    pid_t w = fork();
    if (w == 0) {
        struct sembuf b = {0, -100, 0};
        out("child sleeping on removed set: %s", semop(s, &b, 1) == 0 ? "ok" : errname(errno));
        _exit(0);
    }
    out("sleeper asleep: %s", yesno(wait_sleeping(w)));
    int rm = semctl(s, 0, IPC_RMID);
    waitpid(w, &st, 0);
    check("rmid", rm);
    show("getval of removed", semctl(s, 0, GETVAL));
    return 0;
}
