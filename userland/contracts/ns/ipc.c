/* IPC namespaces: after unshare(CLONE_NEWIPC) a process sees none of
 * its parent's System V message queues, semaphore sets and shared memory
 * segments (by key: ENOENT; by id: EINVAL) nor its POSIX message queues
 * (ENOENT), makes its own with the same keys and names, and its parent's
 * objects are untouched; /proc/sysvipc lists the new namespace's own; a
 * SEM_UNDO adjustment is applied at the unshare, as at exit. */
#include "../common.h"
#include <mqueue.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#define KEY 0x5eed

static int lines(const char *path)
{
    char text[8192];
    int fd = open(path, O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    int count = 0;
    for (ssize_t i = 0; i < n; i++)
        count += text[i] == '\n';
    return count - 1; /* the header */
}

static void show_objects(const char *who)
{
    out("%s: /proc/sysvipc entries: msg %d sem %d shm %d", who, lines("/proc/sysvipc/msg"), lines("/proc/sysvipc/sem"), lines("/proc/sysvipc/shm"));
}

int main(void)
{
    int q = msgget(KEY, IPC_CREAT | 0600);
    int s = semget(KEY, 1, IPC_CREAT | 0600);
    int m = shmget(KEY, 4096, IPC_CREAT | 0600);
    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
    mqd_t mq = mq_open("/ns-test", O_CREAT | O_RDWR, 0600, &attr);
    out("parent objects made: %s", yesno(q >= 0 && s >= 0 && m >= 0 && mq != (mqd_t)-1));
    struct sembuf up = {.sem_num = 0, .sem_op = 2, .sem_flg = SEM_UNDO};
    int pipefd[2];
    pipe(pipefd);
    pid_t pid = fork();
    if (pid == 0) {
        check("child semop +2 with SEM_UNDO", semop(s, &up, 1));
        check("child unshare(CLONE_NEWIPC)", unshare(CLONE_NEWIPC));
        show_objects("child");
        check("child msgget(KEY, 0)", msgget(KEY, 0));
        check("child semget(KEY, 0, 0)", semget(KEY, 0, 0));
        check("child shmget(KEY, 0, 0)", shmget(KEY, 0, 0));
        struct msqid_ds mds;
        check("child msgctl(parent's id, IPC_STAT)", msgctl(q, IPC_STAT, &mds));
        check("child semctl(parent's id, GETVAL)", semctl(s, 0, GETVAL));
        out("child mq_open(/ns-test): %s", mq_open("/ns-test", O_RDWR) == (mqd_t)-1 ? errname(errno) : "ok");
        int q2 = msgget(KEY, IPC_CREAT | 0600);
        int s2 = semget(KEY, 1, IPC_CREAT | 0600);
        int m2 = shmget(KEY, 8192, IPC_CREAT | 0600);
        out("child objects made: %s", yesno(q2 >= 0 && s2 >= 0 && m2 >= 0));
        out("child mq_open(/ns-test, O_CREAT): %s", mq_open("/ns-test", O_CREAT | O_RDWR, 0600, &attr) == (mqd_t)-1 ? errname(errno) : "ok");
        show_objects("child");
        struct shmid_ds sds;
        shmctl(m2, IPC_STAT, &sds);
        out("child segment size %lu", (unsigned long)sds.shm_segsz);
        write(pipefd[1], "x", 1);
        _exit(0);
    }
    char c;
    read(pipefd[0], &c, 1);
    reap("child", pid);
    out("parent semaphore after the child's unshare: %d", semctl(s, 0, GETVAL));
    struct shmid_ds sds;
    shmctl(m, IPC_STAT, &sds);
    out("parent segment size %lu", (unsigned long)sds.shm_segsz);
    check("parent msgget(KEY, 0) is its own", msgget(KEY, 0) == q ? 0 : -1);
    msgctl(q, IPC_RMID, NULL);
    semctl(s, 0, IPC_RMID);
    shmctl(m, IPC_RMID, NULL);
    mq_close(mq);
    check("mq_unlink", mq_unlink("/ns-test"));
    return 0;
}
