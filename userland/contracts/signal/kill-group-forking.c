/* A signal sent to a process group while its members fork reaches every
 * member, the ones being forked too: kill(-pgrp, SIGKILL) on a chain of
 * processes that keeps forking (each forks a child, then waits; the child
 * does the same) leaves no process alive. Kevlar once chose the targets
 * first and signalled them after, so a child forked in between escaped
 * and waited forever. Twenty rounds; as a subreaper the test collects the
 * whole chain, and an alarm ends a round that still has members. */
#include <sys/prctl.h>
#include "common.h"

static volatile sig_atomic_t expired;
static void on_alarm(int s) { (void)s; expired = 1; }

static void chain(void)
{
    for (;;) {
        pid_t p = fork();
        if (p != 0)
            for (;;)
                pause(); /* a failed fork too: stop here */
    }
}

int main(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    int escaped = 0;
    for (int round = 0; round < 20; round++) {
        pid_t leader = fork();
        if (leader == 0) {
            setpgid(0, 0);
            chain();
        }
        setpgid(leader, leader);
        struct timespec t = { 0, 20 * 1000 * 1000 };
        nanosleep(&t, NULL);
        kill(-leader, SIGKILL);
        expired = 0;
        alarm(20);
        for (;;) {
            pid_t w = waitpid(-1, NULL, 0);
            if (w > 0)
                continue;
            if (errno == EINTR && expired) {
                escaped++;
                kill(-leader, SIGKILL); /* clean up for the next round */
                continue;
            }
            if (errno == ECHILD)
                break;
        }
        alarm(0);
    }
    out("rounds with a member left alive: %d", escaped);
    return 0;
}
