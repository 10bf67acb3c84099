/* PID namespaces, the numbers shown by calls that report a task: inside a
 * new namespace, F_GETOWN and F_GETOWN_EX show the owner F_SETOWN was
 * given (the namespace's number, not the global id), F_SETOWN of a number
 * the namespace does not have is ESRCH, PTRACE_GETEVENTMSG after a fork
 * event gives the new child's number in the tracer's namespace, and the
 * last field of /proc/loadavg is the last number the reader's namespace
 * gave. */
#include "../common.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/ptrace.h>

static void inside(void)
{
    int p[2];
    if (pipe(p) < 0)
        _exit(1);
    check("F_SETOWN 1", fcntl(p[0], F_SETOWN, 1));
    out("F_GETOWN %d", fcntl(p[0], F_GETOWN));
    check("F_SETOWN -1 (group 1)", fcntl(p[0], F_SETOWN, -1));
    out("F_GETOWN %d", fcntl(p[0], F_GETOWN));
    struct f_owner_ex ex = { F_OWNER_TID, 1 };
    check("F_SETOWN_EX tid 1", fcntl(p[0], F_SETOWN_EX, &ex));
    ex.pid = 0;
    check("F_GETOWN_EX", fcntl(p[0], F_GETOWN_EX, &ex));
    out("  type %d pid %d", ex.type, ex.pid);
    check("F_SETOWN 77 (no such number here)", fcntl(p[0], F_SETOWN, 77));
    check("F_SETOWN 0", fcntl(p[0], F_SETOWN, 0));
    out("F_GETOWN %d", fcntl(p[0], F_GETOWN));

    pid_t tracee = fork();
    if (tracee == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        pid_t c = fork();
        if (c == 0)
            _exit(0);
        waitpid(c, NULL, 0);
        _exit(0);
    }
    out("tracee %d", tracee);
    int st;
    waitpid(tracee, &st, 0);
    out("tracee stopped: %s", wstatus(st));
    check("PTRACE_SETOPTIONS TRACEFORK", ptrace(PTRACE_SETOPTIONS, tracee, 0, PTRACE_O_TRACEFORK));
    check("PTRACE_CONT", ptrace(PTRACE_CONT, tracee, 0, 0));
    waitpid(tracee, &st, 0);
    out("fork event: %s", yesno(WIFSTOPPED(st) && (st >> 8) == (SIGTRAP | PTRACE_EVENT_FORK << 8)));
    unsigned long msg = 0;
    check("PTRACE_GETEVENTMSG", ptrace(PTRACE_GETEVENTMSG, tracee, 0, &msg));
    out("  new child %lu", msg);
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        char *last = strrchr(buf, ' ');
        out("/proc/loadavg last pid %ld", last ? strtol(last + 1, NULL, 10) : -1L);
    }
    /* The new child starts traced and stopped: let both go. */
    waitpid((pid_t)msg, &st, __WALL);
    ptrace(PTRACE_DETACH, (pid_t)msg, 0, 0);
    ptrace(PTRACE_DETACH, tracee, 0, 0);
    while (waitpid(-1, &st, __WALL) > 0)
        ;
}

int main(void)
{
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    pid_t init = fork();
    if (init == 0) {
        inside();
        _exit(0);
    }
    reap("namespace init", init);
    return 0;
}
