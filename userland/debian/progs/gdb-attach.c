/* A running program for gdb to attach to: it calls tick() every 10 ms
 * until gdb sets `stop`, then exits with the number of ticks it saw
 * after that (0). */
#include <stdio.h>
#include <time.h>

volatile int stop;
int ticks;

void tick(void)
{
    ticks++;
}

int main(void)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    printf("running\n");
    fflush(stdout);
    while (!stop) {
        tick();
        nanosleep(&ts, NULL);
    }
    printf("stopped by gdb\n");
    return 0;
}
