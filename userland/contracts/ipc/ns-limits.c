/* The IPC limits are per IPC namespace, as in Linux: /proc/sys/fs/mqueue
 * (msg_max, msgsize_max, msg_default, msgsize_default, queues_max) and
 * /proc/sys/kernel's msgmax, msgmnb, msgmni, shmmax, shmall, shmmni and
 * sem. A new namespace starts from the defaults, not from its creator's
 * values; root's writes in one namespace change what mq_open, msgsnd,
 * shmget, semget and IPC_INFO see there only; the POSIX queue count that
 * queues_max bounds is the namespace's own. The initial namespace is
 * never written. */
#include "../common.h"
#include <mqueue.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>

static const char *files[] = {
    "fs/mqueue/msg_max", "fs/mqueue/msgsize_max", "fs/mqueue/msg_default", "fs/mqueue/msgsize_default",
    "fs/mqueue/queues_max", "kernel/msgmax", "kernel/msgmnb", "kernel/msgmni", "kernel/shmmax",
    "kernel/shmall", "kernel/shmmni", "kernel/sem",
};
#define NFILES (sizeof files / sizeof files[0])

static void get(const char *name, char *buf, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/%s", name);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0)
        snprintf(buf, size, "%s", errname(errno));
    else
        buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '\t')
            *p = ' ';
}

static void show_all(const char *who)
{
    for (size_t i = 0; i < NFILES; i++) {
        char buf[128];
        get(files[i], buf, sizeof buf);
        out("%s: %s = %s", who, files[i], buf);
    }
}

static void put(const char *who, const char *name, const char *value)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/%s", name);
    int fd = open(path, O_WRONLY);
    long r = fd < 0 ? -1 : write(fd, value, strlen(value));
    out("%s: write %s %s: %s", who, name, value, r < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
}

static void effects(const char *who)
{
    mqd_t q = mq_open("/ns-limits", O_RDWR | O_CREAT, 0600, NULL);
    struct mq_attr a;
    if (q != (mqd_t)-1 && mq_getattr(q, &a) == 0)
        out("%s: mq_open default attributes: maxmsg %ld msgsize %ld", who, (long)a.mq_maxmsg, (long)a.mq_msgsize);
    else
        out("%s: mq_open: %s", who, errname(errno));
    if (q != (mqd_t)-1)
        mq_close(q);
    mq_unlink("/ns-limits");

    struct msginfo mi;
    if (msgctl(0, IPC_INFO, (struct msqid_ds *)&mi) >= 0)
        out("%s: msg IPC_INFO: msgmax %d msgmnb %d msgmni %d", who, mi.msgmax, mi.msgmnb, mi.msgmni);
    else
        out("%s: msg IPC_INFO: %s", who, errname(errno));
    struct shminfo si;
    if (shmctl(0, IPC_INFO, (struct shmid_ds *)&si) >= 0)
        out("%s: shm IPC_INFO: shmmax %lu shmmni %lu shmall %lu", who, (unsigned long)si.shmmax, (unsigned long)si.shmmni, (unsigned long)si.shmall);
    else
        out("%s: shm IPC_INFO: %s", who, errname(errno));
    struct seminfo sm;
    if (semctl(0, 0, IPC_INFO, &sm) >= 0)
        out("%s: sem IPC_INFO: semmsl %d semmns %d semopm %d semmni %d", who, sm.semmsl, sm.semmns, sm.semopm, sm.semmni);
    else
        out("%s: sem IPC_INFO: %s", who, errname(errno));

    int id = msgget(IPC_PRIVATE, 0600);
    static struct { long mtype; char text[5000]; } m = {1, {0}};
    out("%s: msgsnd of 4500 bytes: %s", who, msgsnd(id, &m, 4500, IPC_NOWAIT) == 0 ? "ok" : errname(errno));
    msgctl(id, IPC_RMID, 0);
    int shm = shmget(IPC_PRIVATE, 2 << 20, 0600);
    out("%s: shmget of 2 MiB: %s", who, shm >= 0 ? "ok" : errname(errno));
    if (shm >= 0)
        shmctl(shm, IPC_RMID, 0);
    int sem = semget(IPC_PRIVATE, 150, 0600);
    out("%s: semget of 150 semaphores: %s", who, sem >= 0 ? "ok" : errname(errno));
    if (sem >= 0)
        semctl(sem, 0, IPC_RMID);
}

/* mq_open of a new queue by uid 1000, which queues_max bounds. */
static void user_queue(const char *who)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setuid(1000) < 0)
            _exit(2);
        struct mq_attr a = {0, 2, 64, 0};
        mqd_t q = mq_open("/ns-limits-user", O_RDWR | O_CREAT, 0600, &a);
        out("%s: uid 1000 mq_open with queues_max 1: %s", who, q == (mqd_t)-1 ? errname(errno) : "ok");
        if (q != (mqd_t)-1)
            mq_unlink("/ns-limits-user");
        _exit(0);
    }
    int ws;
    waitpid(pid, &ws, 0);
}

int main(void)
{
    char before[NFILES][128], after[NFILES][128];
    for (size_t i = 0; i < NFILES; i++)
        get(files[i], before[i], sizeof before[i]);

    pid_t a = fork();
    if (a == 0) {
        if (unshare(CLONE_NEWIPC) < 0) {
            out("unshare: %s", errname(errno));
            _exit(1);
        }
        show_all("new ns");
        put("A", "fs/mqueue/msg_max", "20");
        put("A", "fs/mqueue/msgsize_max", "4096");
        put("A", "fs/mqueue/msg_default", "7");
        put("A", "fs/mqueue/msgsize_default", "512");
        put("A", "kernel/msgmax", "4000");
        put("A", "kernel/msgmnb", "9000");
        put("A", "kernel/msgmni", "100");
        put("A", "kernel/shmmax", "1048576");
        put("A", "kernel/shmall", "4096");
        put("A", "kernel/shmmni", "50");
        put("A", "kernel/sem", "100 1000 50 20");
        show_all("A");
        effects("A");

        /* One queue in A, then queues_max 1 there. */
        mqd_t held = mq_open("/ns-limits-held", O_RDWR | O_CREAT, 0600, NULL);
        out("A: held queue: %s", held == (mqd_t)-1 ? errname(errno) : "ok");
        put("A", "fs/mqueue/queues_max", "1");
        user_queue("A");

        pid_t b = fork();
        if (b == 0) {
            if (unshare(CLONE_NEWIPC) < 0) {
                out("B unshare: %s", errname(errno));
                _exit(1);
            }
            show_all("B");
            effects("B");
            put("B", "fs/mqueue/queues_max", "1");
            user_queue("B");
            _exit(0);
        }
        int ws;
        waitpid(b, &ws, 0);
        show_all("A after B");
        mq_unlink("/ns-limits-held");
        _exit(0);
    }
    int ws;
    waitpid(a, &ws, 0);
    out("A: %s", wstatus(ws));
    for (size_t i = 0; i < NFILES; i++)
        get(files[i], after[i], sizeof after[i]);
    int same = 1;
    for (size_t i = 0; i < NFILES; i++)
        same &= strcmp(before[i], after[i]) == 0;
    out("initial namespace's limits unchanged: %s", yesno(same));
    return 0;
}
