/* Default actions: terminating signals (with and without a core-dump
 * action) end the process with that signal; faults from the CPU (NULL
 * store, divide by zero, invalid opcode, breakpoint) raise the documented
 * signals; ignored-by-default signals do nothing. */
#include "common.h"

static void child_signal(int s)
{
    pid_t pid = fork();
    if (pid == 0) {
        raise(s);
        _exit(0);
    }
    char label[48];
    snprintf(label, sizeof label, "raise(%s)", signame(s));
    reap(label, pid);
}

int main(void)
{
    int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGKILL, SIGSYS,
                  SIGCHLD, SIGURG, SIGWINCH, SIGCONT};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        child_signal(sigs[i]);
    child_signal(SIGRTMIN);
    pid_t pid = fork();
    if (pid == 0) {
        *(volatile int *)0 = 1;
        _exit(0);
    }
    reap("NULL store", pid);
    pid = fork();
    if (pid == 0) {
        volatile int z = 0;
        volatile int x = 10 / z;
        (void)x;
        _exit(0);
    }
    reap("integer divide by zero", pid);
    pid = fork();
    if (pid == 0) {
        __asm__ volatile("ud2");
        _exit(0);
    }
    reap("ud2", pid);
    pid = fork();
    if (pid == 0) {
        __asm__ volatile("int3");
        _exit(0);
    }
    reap("int3", pid);
    pid = fork();
    if (pid == 0) {
        abort();
    }
    reap("abort()", pid);
    pid = fork();
    if (pid == 0) {
        /* abort() terminates even when SIGABRT is ignored. */
        signal(SIGABRT, SIG_IGN);
        abort();
    }
    reap("abort() with SIGABRT ignored", pid);
    return 0;
}
