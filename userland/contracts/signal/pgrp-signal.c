/* Signals to a process group: kill(-pgid) and killpg reach every member,
 * not processes outside the group; kill(0) reaches the caller's group. */
#include "common.h"

int main(void)
{
    int ready[2];
    pipe(ready);
    pid_t leader = fork();
    if (leader == 0) {
        setpgid(0, 0);
        for (int i = 0; i < 2; i++) {
            if (fork() == 0) {
                write(ready[1], "c", 1);
                for (;;)
                    pause();
            }
        }
        signal(SIGUSR2, SIG_IGN); /* the leader survives to report */
        write(ready[1], "l", 1);
        int st, killed = 0;
        for (int i = 0; i < 2; i++)
            if (wait(&st) > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR2)
                killed++;
        _exit(killed); /* reported through the exit status: no racing output */
    }
    setpgid(leader, leader);
    /* An outsider child in our own group. */
    pid_t outsider = fork();
    if (outsider == 0) {
        for (;;)
            pause();
    }
    char buf[3];
    read_full(ready[0], buf, 3);
    show("kill(-leader, 0)", kill(-leader, 0));
    show("killpg(missing group, 0)", killpg(999999, 0));
    show("kill(-leader, SIGUSR2)", kill(-leader, SIGUSR2));
    reap("leader (exit status = children it saw killed by SIGUSR2)", leader);
    show("outsider still alive", kill(outsider, 0));
    signal(SIGTERM, SIG_IGN);
    show("kill(0, SIGTERM) to our own group", kill(0, SIGTERM));
    reap("outsider (in our group)", outsider);
    return 0;
}
