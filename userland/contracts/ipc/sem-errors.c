/* SysV semaphore errors: semget's nsems rules (EINVAL, a smaller count
 * for an existing key), semop's counts and numbers (EINVAL, E2BIG, EFBIG),
 * EFAULT, bad timeouts, ERANGE for SETVAL and SETALL, semctl commands
 * (EINVAL), IPC_INFO/SEM_INFO values, IPC_STAT and SEM_STAT, permissions
 * as uid 1000, and a signal interrupting a sleeper (EINTR). */
#include "ipc.h"
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SEM_STAT_ANY
#define SEM_STAT_ANY 20
#endif

union semun { int val; struct semid_ds *buf; unsigned short *array; struct seminfo *__buf; };

static void on_alarm(int sig) { (void)sig; }

int main(void)
{
    key_t key = 0x4b455602;
    semctl(semget(key, 0, 0), 0, IPC_RMID);
    check("nsems 0 new", semget(key, 0, IPC_CREAT | 0600));
    check("nsems -1", semget(key, -1, IPC_CREAT | 0600));
    check("nsems 32001", semget(key, 32001, IPC_CREAT | 0600));
    int s = semget(key, 4, IPC_CREAT | 0600);
    check("create 4", s);
    out("nsems 0 existing: %s", yesno(semget(key, 0, 0) == s));
    out("nsems 2 existing: %s", yesno(semget(key, 2, 0) == s));
    check("nsems 5 existing", semget(key, 5, 0));
    check("excl", semget(key, 4, IPC_CREAT | IPC_EXCL | 0600));

    struct sembuf b = {0, 1, 0};
    check("nsops 0", semop(s, &b, 0));
    check("negative id", semop(-1, &b, 1));
    struct sembuf many[501];
    memset(many, 0, sizeof many);
    check("nsops 501", semop(s, many, 501));
    struct sembuf far = {4, 1, 0};
    check("sem_num 4", semop(s, &far, 1));
    rcheck("bad sops", rawsys(SYS_semop, s, 16, 1, 0, 0, 0));
    rcheck("bad timeout", rawsys(SYS_semtimedop, s, (long)&b, 1, 16, 0, 0));
    struct timespec bad = {0, 1000000000};
    check("tv_nsec 1e9", semtimedop(s, &b, 1, &bad));
    bad.tv_sec = -1; bad.tv_nsec = 0;
    check("tv_sec -1", semtimedop(s, &b, 1, &bad));
    check("setval 32768", semctl(s, 0, SETVAL, (union semun){.val = 32768}));
    check("setval -1", semctl(s, 0, SETVAL, (union semun){.val = -1}));
    check("setval num 4", semctl(s, 4, SETVAL, (union semun){.val = 1}));
    check("getval num -1", semctl(s, -1, GETVAL));
    unsigned short big[4] = {1, 2, 40000, 3};
    check("setall 40000", semctl(s, 0, SETALL, (union semun){.array = big}));
    check("getall to bad buffer", semctl(s, 0, GETALL, (union semun){.array = (void *)16}));
    check("bad cmd", semctl(s, 0, 99));
    check("semctl negative id", semctl(-1, 0, GETVAL));
    check("stale sequence", semctl(s + 32768, 0, GETVAL));

    struct seminfo info;
    long r = semctl(0, 0, IPC_INFO, (union semun){.__buf = &info});
    out("IPC_INFO: %s map %d mni %d mns %d mnu %d msl %d opm %d ume %d usz %d vmx %d aem %d",
        r >= 0 ? "ok" : errname(errno), info.semmap, info.semmni, info.semmns, info.semmnu,
        info.semmsl, info.semopm, info.semume, info.semusz, info.semvmx, info.semaem);
    r = semctl(0, 0, SEM_INFO, (union semun){.__buf = &info});
    out("SEM_INFO: %s usz>=1 %s aem>=4 %s", r >= 0 ? "ok" : errname(errno),
        yesno(info.semusz >= 1), yesno(info.semaem >= 4));
    struct semid_ds ds;
    check("IPC_STAT", semctl(s, 0, IPC_STAT, (union semun){.buf = &ds}));
    out("nsems %lu mode %o uid %u otime 0: %s", (unsigned long)ds.sem_nsems, ds.sem_perm.mode,
        ds.sem_perm.uid, yesno(ds.sem_otime == 0));
    semop(s, &b, 1);
    semctl(s, 0, IPC_STAT, (union semun){.buf = &ds});
    out("otime set: %s", yesno(ds.sem_otime != 0));
    out("SEM_STAT gives the id: %s", yesno(semctl(s & 0x7fff, 0, SEM_STAT, (union semun){.buf = &ds}) == s));
    check("SEM_STAT unused index", semctl(32767, 0, SEM_STAT, (union semun){.buf = &ds}));

    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, 0);
    alarm(1);
    struct sembuf wait = {1, -1, 0};
    check("semop interrupted", semop(s, &wait, 1));

    pid_t pid = fork();
    if (pid == 0) {
        if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
            _exit(9);
        check("uid 1000 semget", semget(key, 0, 0));
        check("uid 1000 semget 0400", semget(key, 0, 0400));
        check("uid 1000 getval", semctl(s, 0, GETVAL));
        check("uid 1000 setval", semctl(s, 0, SETVAL, (union semun){.val = 1}));
        check("uid 1000 semop", semop(s, &b, 1));
        struct sembuf z = {0, 0, IPC_NOWAIT};
        check("uid 1000 zero wait", semop(s, &z, 1));
        check("uid 1000 IPC_STAT", semctl(s, 0, IPC_STAT, (union semun){.buf = &ds}));
        check("uid 1000 SEM_STAT_ANY", semctl(s & 0x7fff, 0, SEM_STAT_ANY, (union semun){.buf = &ds}));
        check("uid 1000 rmid", semctl(s, 0, IPC_RMID));
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));
    semctl(s, 0, IPC_STAT, (union semun){.buf = &ds});
    ds.sem_perm.mode = 0644;
    check("IPC_SET 0644", semctl(s, 0, IPC_SET, (union semun){.buf = &ds}));
    pid = fork();
    if (pid == 0) {
        if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
            _exit(9);
        check("uid 1000 getval 0644", semctl(s, 0, GETVAL));
        struct sembuf z = {0, 0, IPC_NOWAIT};
        check("uid 1000 zero wait 0644", semop(s, &z, 1));
        check("uid 1000 semop 0644", semop(s, &b, 1));
        _exit(0);
    }
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));
    check("rmid", semctl(s, 0, IPC_RMID));
    check("rmid again", semctl(s, 0, IPC_RMID));
    return 0;
}
