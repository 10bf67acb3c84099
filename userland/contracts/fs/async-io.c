/* Signal-driven I/O: O_ASYNC (F_SETFL or FIOASYNC) with an owner set by
 * F_SETOWN/F_SETOWN_EX sends SIGIO when a pipe or socket becomes
 * readable; after F_SETSIG the chosen signal comes with si_code POLL_IN,
 * si_fd and si_band. Errors for bad owners and signals. */
#include "common.h"
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static volatile int sigio_count, rt_count, rt_code, rt_fd;
static volatile long rt_band;
static void on_sigio(int s) { (void)s; sigio_count++; }
static void on_rt(int s, siginfo_t *si, void *c)
{
    (void)s; (void)c;
    rt_count++;
    rt_code = si->si_code;
    rt_fd = si->si_fd;
    rt_band = si->si_band;
}

static void wait_for(volatile int *counter)
{
    for (int i = 0; i < 200 && !*counter; i++)
        msleep(10);
}

static const char *res(long r) { return r < 0 ? errname(errno) : "ok"; }

int main(void)
{
    struct sigaction sa = { .sa_handler = on_sigio };
    sigaction(SIGIO, &sa, NULL);
    struct sigaction rt = { .sa_sigaction = on_rt, .sa_flags = SA_SIGINFO };
    sigaction(SIGRTMIN + 1, &rt, NULL);

    int p[2];
    pipe(p);
    out("F_GETOWN before: %d", fcntl(p[0], F_GETOWN));
    out("F_SETOWN to a missing pid: %s", res(fcntl(p[0], F_SETOWN, 4000000)));
    out("F_SETOWN to a missing group: %s", res(fcntl(p[0], F_SETOWN, -4000000)));
    out("F_SETOWN self: %s", res(fcntl(p[0], F_SETOWN, getpid())));
    out("F_GETOWN is self: %s", yesno(fcntl(p[0], F_GETOWN) == getpid()));
    out("F_SETFL O_ASYNC: %s", res(fcntl(p[0], F_SETFL, O_ASYNC)));
    out("F_GETFL has O_ASYNC: %s", yesno(fcntl(p[0], F_GETFL) & O_ASYNC));
    write(p[1], "x", 1);
    wait_for(&sigio_count);
    out("SIGIO after a pipe write: %s", yesno(sigio_count > 0));
    char c;
    read(p[0], &c, 1);
    fcntl(p[0], F_SETFL, 0);
    sigio_count = 0;
    write(p[1], "y", 1);
    msleep(50);
    out("no SIGIO once O_ASYNC is off: %s", yesno(sigio_count == 0));
    read(p[0], &c, 1);

    /* A socketpair through FIOASYNC (what nginx does), F_SETOWN_EX. */
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int on = 1;
    out("FIOASYNC on a socket: %s", res(ioctl(sv[0], FIOASYNC, &on)));
    struct f_owner_ex ex = { .type = 7, .pid = getpid() };
    out("F_SETOWN_EX bad type: %s", res(fcntl(sv[0], F_SETOWN_EX, &ex)));
    ex.type = F_OWNER_PID;
    out("F_SETOWN_EX pid: %s", res(fcntl(sv[0], F_SETOWN_EX, &ex)));
    struct f_owner_ex got = { 0 };
    fcntl(sv[0], F_GETOWN_EX, &got);
    out("F_GETOWN_EX: type %s, self %s", got.type == F_OWNER_PID ? "F_OWNER_PID" : "other", yesno(got.pid == getpid()));
    out("F_SETSIG 65: %s", res(fcntl(sv[0], F_SETSIG, 65)));
    out("F_SETSIG SIGRTMIN+1: %s", res(fcntl(sv[0], F_SETSIG, SIGRTMIN + 1)));
    out("F_GETSIG is it: %s", yesno(fcntl(sv[0], F_GETSIG) == SIGRTMIN + 1));
    sigio_count = 0;
    write(sv[1], "hello", 5);
    wait_for(&rt_count);
    out("queued signal: %s, si_code POLL_IN: %s, si_fd right: %s, band has POLLIN: %s, plain SIGIO: %s",
        yesno(rt_count > 0), yesno(rt_code == POLL_IN), yesno(rt_fd == sv[0]), yesno(rt_band & POLLIN), yesno(sigio_count > 0));

    /* A process-group owner: the child, in its own group, gets it. */
    int ready[2];
    pipe(ready);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigio_count = 0;
        write(ready[1], "r", 1);
        for (int i = 0; i < 300 && !sigio_count; i++)
            msleep(10);
        _exit(sigio_count > 0 ? 0 : 1);
    }
    read(ready[0], &c, 1);
    int q[2];
    pipe(q);
    out("F_SETOWN to the child's group: %s", res(fcntl(q[0], F_SETOWN, -pid)));
    out("F_GETOWN is minus the group: %s", yesno(fcntl(q[0], F_GETOWN) == -pid));
    fcntl(q[0], F_SETFL, O_ASYNC | O_NONBLOCK);
    write(q[1], "z", 1);
    reap("child in the owning group (exit 0: got SIGIO)", pid);
    return 0;
}
