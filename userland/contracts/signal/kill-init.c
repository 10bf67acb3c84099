/* PID 1, the initial namespace's init, is Linux's SIGNAL_UNKILLABLE: a
 * signal it has no handler for is dropped, SIGKILL and SIGSTOP too, from
 * any sender (root here) and by any call (kill, tgkill, rt_sigqueueinfo,
 * pidfd_send_signal); each call still returns 0 and init stays, running.
 * (Kevlar let root's SIGKILL end init, and with it the machine: kfuzz
 * --focus new, seed 10301, a pidfd of PID 1.) */
#include "common.h"

/* The state letter of /proc/1/stat, or '?' when init is gone. */
static char init_state(void)
{
    char b[256] = {0};
    int fd = open("/proc/1/stat", O_RDONLY);
    if (fd < 0)
        return '?';
    read(fd, b, sizeof b - 1);
    close(fd);
    char *p = strrchr(b, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

int main(void)
{
    show("kill(1, SIGSTOP)", kill(1, SIGSTOP));
    usleep(100000);
    out("init stopped: %s", init_state() == 'T' ? "yes" : "no");
    kill(1, SIGCONT);
    show("kill(1, SIGKILL)", kill(1, SIGKILL));
    usleep(100000);
    show("init there after kill", kill(1, 0));
    show("tgkill(1, 1, SIGKILL)", syscall(SYS_tgkill, 1, 1, SIGKILL));
    usleep(100000);
    show("init there after tgkill", kill(1, 0));
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGKILL;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    show("rt_sigqueueinfo(1, SIGKILL)", syscall(SYS_rt_sigqueueinfo, 1, SIGKILL, &si));
    usleep(100000);
    show("init there after rt_sigqueueinfo", kill(1, 0));
    long pfd = syscall(SYS_pidfd_open, 1, 0);
    out("pidfd_open(1): %s", pfd >= 0 ? "fd" : "error");
    show("pidfd_send_signal(init, SIGKILL)", syscall(SYS_pidfd_send_signal, (int)pfd, SIGKILL, NULL, 0));
    usleep(100000);
    show("init there after pidfd_send_signal", kill(1, 0));
    out("init state: %c", init_state() == 'T' || init_state() == 'Z' || init_state() == '?' ? init_state() : 'S');
    return 0;
}
