/* A signal interrupting a blocking pipe read: with SA_RESTART the read
 * restarts and returns the data written later; without it read fails with
 * EINTR. The handler runs in both cases. The signal comes from our own
 * interval timer (armed just before read, firing 200 ms later) so it
 * lands while we are blocked; a child writes the data after 500 ms. */
#include "common.h"
#include <sys/time.h>

static volatile int handled;
static void h(int s) { (void)s; handled++; }

static void run(int flags, const char *label)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigaction(SIGALRM, &sa, NULL);
    int p[2];
    pipe(p);
    handled = 0;
    pid_t pid = fork();
    if (pid == 0) {
        msleep(500);
        write(p[1], "data", 4);
        _exit(0);
    }
    char buf[8] = {0};
    struct itimerval it = {{0, 0}, {0, 200000}};
    setitimer(ITIMER_REAL, &it, NULL);
    errno = 0;
    ssize_t n = read(p[0], buf, sizeof buf);
    if (n < 0)
        out("%s: read -1 %s, handler ran %d time(s)", label, errname(errno), handled);
    else
        out("%s: read %ld '%s', handler ran %d time(s)", label, (long)n, buf, handled);
    reap("child", pid);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    run(SA_RESTART, "SA_RESTART");
    run(0, "no SA_RESTART");
    /* musl's signal() installs handlers with SA_RESTART. */
    signal(SIGALRM, h);
    struct sigaction cur;
    sigaction(SIGALRM, NULL, &cur);
    out("signal() installs SA_RESTART: %s", yesno(cur.sa_flags & SA_RESTART));
    /* nanosleep is never restarted: EINTR with the remaining time. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 0}, {0, 100000}};
    setitimer(ITIMER_REAL, &it, NULL);
    struct timespec req = {3, 0}, rem = {0, 0};
    errno = 0;
    int r = nanosleep(&req, &rem);
    out("nanosleep with SA_RESTART: %d %s, remaining between 1 and 3 s: %s", r, errname(errno),
        yesno(rem.tv_sec >= 1 && rem.tv_sec < 3));
    /* Reads from a pipe that already has data are not interrupted. */
    int p[2];
    pipe(p);
    write(p[1], "xy", 2);
    raise(SIGALRM);
    char b[4];
    out("read with data after a handled signal: %ld", (long)read(p[0], b, sizeof b));
    return 0;
}
