/* A stop and continue (SIGSTOP, SIGCONT, no handler) while a process
 * sleeps in msgrcv or msgsnd: the call goes on waiting (Linux restarts
 * them, ERESTARTNOHAND); in semop it fails with EINTR (Linux's semop
 * never restarts, as signal(7) lists). */
#include "ipc.h"
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>

static void stop_and_continue(pid_t pid, int wait_continued)
{
    int st;
    out("asleep: %s", yesno(wait_sleeping(pid)));
    kill(pid, SIGSTOP);
    waitpid(pid, &st, WUNTRACED);
    out("child: %s", wstatus(st));
    kill(pid, SIGCONT);
    if (wait_continued) {
        waitpid(pid, &st, WCONTINUED);
        out("child: %s", wstatus(st));
    }
}

int main(void)
{
    int q = msgget(IPC_PRIVATE, 0600);
    struct { long type; char text[8]; } m = {1, "hi"};
    pid_t pid = fork();
    if (pid == 0) {
        ssize_t n = msgrcv(q, &m, sizeof m.text, 1, 0);
        _exit(n == 3 ? 0 : n < 0 ? errno : 100);
    }
    stop_and_continue(pid, 1);
    out("child asleep again: %s", yesno(wait_sleeping(pid)));
    msgsnd(q, &m, 3, 0);
    int st;
    waitpid(pid, &st, 0);
    out("msgrcv: %s", wstatus(st));

    /* A sender blocked on a full queue. */
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 3;
    msgctl(q, IPC_SET, &ds);
    msgsnd(q, &m, 3, 0);
    pid = fork();
    if (pid == 0)
        _exit(msgsnd(q, &m, 3, 0) == 0 ? 0 : errno);
    stop_and_continue(pid, 1);
    out("child asleep again: %s", yesno(wait_sleeping(pid)));
    msgrcv(q, &m, sizeof m.text, 0, 0);
    waitpid(pid, &st, 0);
    out("msgsnd: %s", wstatus(st));
    msgctl(q, IPC_RMID, 0);

    int s = semget(IPC_PRIVATE, 1, 0600);
    pid = fork();
    if (pid == 0) {
        struct sembuf b = {0, -1, 0};
        _exit(semop(s, &b, 1) == 0 ? 0 : errno);
    }
    /* (The child may end before a WCONTINUED wait could see it.) */
    stop_and_continue(pid, 0);
    waitpid(pid, &st, 0);
    out("semop: %s (EINTR is %d)", wstatus(st), EINTR);
    semctl(s, 0, IPC_RMID);
    return 0;
}
