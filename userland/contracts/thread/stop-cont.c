/* Job control of a multi-threaded process: SIGSTOP stops every thread
 * (the parent hears of it once all have stopped, and no thread runs while
 * stopped), SIGCONT resumes them all, SIGKILL ends a stopped process. */
#include "common.h"
#include <pthread.h>
#include <sys/mman.h>

static volatile long *counters;

static void *spin(void *arg)
{
    long i = (long)arg;
    for (;;)
        counters[i]++;
    return NULL;
}

static void *sleepy(void *arg)
{
    long i = (long)arg;
    for (;;) {
        usleep(1000);
        counters[i]++;
    }
    return NULL;
}

static int all_moved(const long *before)
{
    for (int i = 0; i < 3; i++)
        if (counters[i] == before[i])
            return 0;
    return 1;
}

int main(void)
{
    counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t a, b;
        pthread_create(&a, NULL, spin, (void *)1L);
        pthread_create(&b, NULL, sleepy, (void *)2L);
        spin((void *)0L);
    }
    while (counters[0] == 0 || counters[1] == 0 || counters[2] == 0)
        usleep(1000);

    int st;
    kill(pid, SIGSTOP);
    pid_t w = waitpid(pid, &st, WUNTRACED);
    out("waitpid WUNTRACED: child %s, stopped by %s", yesno(w == pid), WIFSTOPPED(st) ? signame(WSTOPSIG(st)) : "-");
    long before[3] = {counters[0], counters[1], counters[2]};
    usleep(100000);
    out("no thread ran while stopped: %s", yesno(counters[0] == before[0] && counters[1] == before[1] && counters[2] == before[2]));

    kill(pid, SIGCONT);
    w = waitpid(pid, &st, WCONTINUED);
    out("waitpid WCONTINUED: continued %s", yesno(w == pid && WIFCONTINUED(st)));
    for (int i = 0; i < 200 && !all_moved(before); i++)
        usleep(5000);
    out("every thread runs again: %s", yesno(all_moved(before)));

    kill(pid, SIGSTOP);
    waitpid(pid, &st, WUNTRACED);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    out("SIGKILL while stopped: %s", wstatus(st));
    return 0;
}
