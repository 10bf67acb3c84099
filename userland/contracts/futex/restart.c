/* A FUTEX_WAIT without a timeout interrupted by a signal whose handler
 * has SA_RESTART is restarted (the caller never sees EINTR) and returns
 * when woken; with a timeout it returns EINTR (Linux restarts those only
 * when no handler ran). A signal that is ignored does not end the wait. */
#include "common.h"
#include "futex.h"
#include <sys/mman.h>
#include <sys/time.h>

static volatile int handled;
static void on_alarm(int sig)
{
    (void)sig;
    handled++;
}

/* A child that wakes the word after `ms`. */
static pid_t waker(volatile int *w, int ms)
{
    pid_t pid = fork();
    if (pid == 0) {
        usleep(ms * 1000);
        for (int i = 0; i < 5000; i++) {
            if (fx(w, FUTEX_WAKE, 1, NULL, NULL, 0) == 1)
                break;
            usleep(1000);
        }
        _exit(0);
    }
    return pid;
}

int main(void)
{
    volatile int *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);

    pid_t pid = waker(w, 200);
    struct itimerval it = {{0, 0}, {0, 30000}};
    setitimer(ITIMER_REAL, &it, NULL);
    res("wait, SA_RESTART handler", fx(w, FUTEX_WAIT, 0, NULL, NULL, 0));
    out("handler ran: %d", handled);
    reap("waker", pid);

    struct timespec five = {5, 0};
    setitimer(ITIMER_REAL, &it, NULL);
    res("timed wait, SA_RESTART handler", fx(w, FUTEX_WAIT, 0, &five, NULL, 0));
    out("handler ran: %d", handled);

    signal(SIGUSR1, SIG_IGN);
    pid = fork();
    if (pid == 0) {
        usleep(30000);
        kill(getppid(), SIGUSR1);
        usleep(100000);
        fx(w, FUTEX_WAKE, 1, NULL, NULL, 0);
        _exit(0);
    }
    struct timespec one = {1, 0};
    res("timed wait, ignored signal", fx(w, FUTEX_WAIT, 0, &one, NULL, 0));
    reap("signaller", pid);
    return 0;
}
