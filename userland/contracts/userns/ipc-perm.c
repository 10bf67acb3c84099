/* System V IPC ownership across user namespaces, for a process that
 * became root of a namespace of its own (ids 0..999 = 100000..100999)
 * but stayed in the initial IPC namespace: IPC_STAT (shm, msg, sem) and
 * /proc/sysvipc show uid, gid, cuid and cgid as its namespace sees them
 * (65534 when it does not map them); IPC_SET takes ids through its map
 * (EINVAL for one it does not map) on an object it made, and is EPERM on
 * root's (CAP_SYS_ADMIN counts in the IPC namespace's owner, the initial
 * user namespace); so is CAP_IPC_OWNER: root's mode 0600 objects stay
 * closed to it (EACCES). */
#include "inner.h"
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#define KEY_OPEN 0x75736e31
#define KEY_CLOSED 0x75736e32
#define KEY_INNER 0x75736e33

union semun {
    int val;
    struct semid_ds *buf;
};

static void perm_line(const char *label, const struct ipc_perm *p)
{
    out("%s: uid %d gid %d cuid %d cgid %d mode %o", label, (int)p->uid, (int)p->gid, (int)p->cuid, (int)p->cgid, p->mode & 0777);
}

static void stat_all(const char *who, int shm, int msg, int sem)
{
    char label[128];
    struct shmid_ds s;
    snprintf(label, sizeof label, "%s, shm IPC_STAT", who);
    if (shmctl(shm, IPC_STAT, &s) < 0)
        out("%s: %s", label, errname(errno));
    else
        perm_line(label, &s.shm_perm);
    struct msqid_ds q;
    snprintf(label, sizeof label, "%s, msg IPC_STAT", who);
    if (msgctl(msg, IPC_STAT, &q) < 0)
        out("%s: %s", label, errname(errno));
    else
        perm_line(label, &q.msg_perm);
    struct semid_ds d;
    union semun arg = {.buf = &d};
    snprintf(label, sizeof label, "%s, sem IPC_STAT", who);
    if (semctl(sem, 0, IPC_STAT, arg) < 0)
        out("%s: %s", label, errname(errno));
    else
        perm_line(label, &d.sem_perm);
}

/* The lines of /proc/sysvipc/<kind> for our keys: key and the four ids
 * (the columns named uid, gid, cuid, cgid in its header). */
static void proc_lines(const char *who, const char *kind)
{
    char path[64], buf[16384];
    snprintf(path, sizeof path, "/proc/sysvipc/%s", kind);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read_full(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        out("%s, %s: %s", who, path, errname(errno));
        return;
    }
    buf[n] = 0;
    char *save = NULL;
    char *line = strtok_r(buf, "\n", &save);
    int columns[4] = {-1, -1, -1, -1};
    const char *names[4] = {"uid", "gid", "cuid", "cgid"};
    char *hsave = NULL;
    int i = 0;
    for (char *h = strtok_r(line, " ", &hsave); h; h = strtok_r(NULL, " ", &hsave), i++)
        for (int k = 0; k < 4; k++)
            if (!strcmp(h, names[k]))
                columns[k] = i;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *fields[32];
        int count = 0;
        char *fsave = NULL;
        for (char *f = strtok_r(line, " ", &fsave); f && count < 32; f = strtok_r(NULL, " ", &fsave))
            fields[count++] = f;
        if (count == 0)
            continue;
        long key = strtol(fields[0], NULL, 10);
        if (key != KEY_OPEN && key != KEY_CLOSED && key != KEY_INNER)
            continue;
        out("%s, /proc/sysvipc/%s key %lx: uid %s gid %s cuid %s cgid %s", who, kind, key,
            columns[0] < count ? fields[columns[0]] : "?", columns[1] < count ? fields[columns[1]] : "?",
            columns[2] < count ? fields[columns[2]] : "?", columns[3] < count ? fields[columns[3]] : "?");
    }
}

static void set_owner(const char *label, int shm, uid_t uid, gid_t gid)
{
    struct shmid_ds s;
    if (shmctl(shm, IPC_STAT, &s) < 0) {
        out("%s: stat %s", label, errname(errno));
        return;
    }
    s.shm_perm.uid = uid;
    s.shm_perm.gid = gid;
    check(label, shmctl(shm, IPC_SET, &s));
}

int main(void)
{
    int shm = shmget(KEY_OPEN, 4096, IPC_CREAT | IPC_EXCL | 0644);
    int msg = msgget(KEY_OPEN, IPC_CREAT | IPC_EXCL | 0644);
    int sem = semget(KEY_OPEN, 1, IPC_CREAT | IPC_EXCL | 0644);
    int closed = shmget(KEY_CLOSED, 4096, IPC_CREAT | IPC_EXCL | 0600);
    if (shm < 0 || msg < 0 || sem < 0 || closed < 0)
        out("making the objects: %s", errname(errno));
    /* The message queue now belongs to ids the namespace maps. */
    struct msqid_ds q;
    msgctl(msg, IPC_STAT, &q);
    q.msg_perm.uid = INNER_BASE + 1;
    q.msg_perm.gid = INNER_BASE + 2;
    check("root gives the queue to 100001/100002", msgctl(msg, IPC_SET, &q));
    stat_all("root", shm, msg, sem);

    struct mapper m;
    mapper_init(&m);
    pid_t pid = fork();
    if (pid == 0) {
        if (inner_enter(&m) < 0)
            _exit(1);
        stat_all("inner", shm, msg, sem);
        proc_lines("inner", "shm");
        proc_lines("inner", "msg");
        proc_lines("inner", "sem");
        struct shmid_ds s;
        out("inner, IPC_STAT of root's 0600 segment: %s", shmctl(closed, IPC_STAT, &s) < 0 ? errname(errno) : "ok");
        check("inner, shmat of root's 0600 segment", (long)shmat(closed, NULL, SHM_RDONLY) == -1 ? -1 : 0);
        set_owner("inner, IPC_SET on root's segment", shm, 0, 0);
        check("inner, IPC_RMID on root's segment", shmctl(shm, IPC_RMID, NULL));
        int own = shmget(KEY_INNER, 4096, IPC_CREAT | IPC_EXCL | 0640);
        if (own < 0)
            out("inner shmget: %s", errname(errno));
        set_owner("inner, IPC_SET of uid 1000 (unmapped)", own, 1000, 0);
        set_owner("inner, IPC_SET of gid -1", own, 0, (gid_t)-1);
        set_owner("inner, IPC_SET of 5/6", own, 5, 6);
        if (shmctl(own, IPC_STAT, &s) < 0)
            out("inner, its segment: %s", errname(errno));
        else
            perm_line("inner, its segment", &s.shm_perm);
        inner_ready(&m);
        inner_wait(&m);
        _exit(0);
    }
    mapper_serve(&m);
    root_wait(&m);
    int own = shmget(KEY_INNER, 0, 0);
    struct shmid_ds s;
    if (shmctl(own, IPC_STAT, &s) < 0)
        out("root, the inner's segment: %s", errname(errno));
    else
        perm_line("root, the inner's segment", &s.shm_perm);
    proc_lines("root", "shm");
    root_go(&m);
    reap("inner", pid);
    shmctl(own, IPC_RMID, NULL);
    shmctl(shm, IPC_RMID, NULL);
    shmctl(closed, IPC_RMID, NULL);
    msgctl(msg, IPC_RMID, NULL);
    semctl(sem, 0, IPC_RMID);
    return 0;
}
