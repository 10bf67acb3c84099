/* Signals whose default action dumps core end the process and the
 * parent's wait returns, whatever the child was doing: sleeping in
 * pause, nanosleep or a pipe read, or running. With RLIMIT_CORE 0 (init's
 * default) no core is written, and the status says so. */
#include "common.h"

static void child(int how)
{
    int p[2];
    pipe(p);
    switch (how) {
    case 0: pause(); break;
    case 1: { struct timespec t = { 100, 0 }; nanosleep(&t, NULL); break; }
    case 2: { char c; read(p[0], &c, 1); break; }
    default: for (volatile unsigned long i = 0;; i++) ; 
    }
    _exit(9);
}

static void on_alarm(int s) { (void)s; }

int main(void)
{
    const char *states[] = { "pause", "nanosleep", "pipe read", "running" };
    int sigs[] = { SIGQUIT, SIGABRT, SIGSEGV, SIGFPE, SIGSYS, SIGXCPU };
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    for (unsigned s = 0; s < sizeof sigs / sizeof sigs[0]; s++) {
        for (int how = 0; how < 4; how++) {
            if (s > 0 && how != 0 && how != 3)
                continue;
            pid_t pid = fork();
            if (pid == 0)
                child(how);
            msleep(30);
            kill(pid, sigs[s]);
            alarm(5);
            int st;
            pid_t r = waitpid(pid, &st, 0);
            alarm(0);
            if (r != pid) {
                out("%s while in %s: wait %s", signame(sigs[s]), states[how], errname(errno));
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
            } else {
                out("%s while in %s: %s%s", signame(sigs[s]), states[how], wstatus(st),
                    WIFSIGNALED(st) && WCOREDUMP(st) ? " (core dumped)" : "");
            }
        }
    }
    return 0;
}
