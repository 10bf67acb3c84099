/* A long sendfile (/dev/zero to /dev/null, 2 GiB a call, over and over)
 * in a child must not keep a sleeping parent from waking on time, even
 * with one CPU: the kernel's copy loop lets expired timers run (on
 * Kevlar they used to run only on the way to user mode or when idle, so
 * at -smp 1 the parent slept until the copy ended). */
#include "common.h"
#include <sys/sendfile.h>
#include <time.h>

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int main(void)
{
    pid_t child = fork();
    if (child == 0) {
        int zero = open("/dev/zero", O_RDONLY);
        int null = open("/dev/null", O_WRONLY);
        for (;;)
            sendfile(null, zero, NULL, 0x7ffff000);
    }
    usleep(100000); /* the child is copying now */
    int on_time = 0;
    for (int i = 0; i < 5; i++) {
        long long t0 = now_ms();
        usleep(100000);
        if (now_ms() - t0 < 2000)
            on_time++;
    }
    out("parent woke on time: %d of 5", on_time);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    out("child: %s", wstatus(status));
    return 0;
}
