/* A fork child inherits no timers (its ids start at 0) and no pending
 * expiry; exec deletes the timers (the ids go on); exit deletes them. */
#include "timers.h"

int main(int argc, char **argv)
{
    struct kitimerspec cur;
    struct ksigevent ev = {0};
    ev.notify = SIGEV_SIGNAL;
    ev.signo = SIGUSR1;
    int id;
    if (argc > 1) {
        rcheck("after exec: gettime of timer 0", tget(0, &cur));
        rcheck("after exec: gettime of timer 1", tget(1, &cur));
        long r = tcreate(CLOCK_MONOTONIC, &ev, &id);
        out("after exec: create %ld, id %d", r, id);
        return 0;
    }
    signal(SIGUSR1, SIG_IGN);
    tcreate(CLOCK_MONOTONIC, &ev, &id);
    tcreate(CLOCK_MONOTONIC, &ev, &id);
    tset(0, 0, 30000000, 0, NULL);
    out("parent ids 0 and 1, last %d", id);
    pid_t pid = fork();
    if (pid == 0) {
        rcheck("child: gettime of timer 0", tget(0, &cur));
        long r = tcreate(CLOCK_MONOTONIC, &ev, &id);
        out("child: create %ld, id %d", r, id);
        _exit(0);
    }
    reap("child", pid);
    rcheck("parent: gettime of timer 0", tget(0, &cur));
    execl("/proc/self/exe", argv[0], "again", (char *)NULL);
    out("exec failed: %s", errname(errno));
    return 1;
}
