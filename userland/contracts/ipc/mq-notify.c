/* mq_notify: SIGEV_SIGNAL delivers the signal (si_code SI_MESGQ, the
 * sender's pid and uid, the sigval) when a message reaches an empty
 * queue, once; a second registration is EBUSY; NULL unregisters;
 * SIGEV_NONE registers without a signal; the registration shows in the
 * queue's read() text; a waiting receiver takes precedence (no signal);
 * SIGEV_THREAD's checks (a bad fd, not a socket) by raw call. */
#include "ipc.h"
#include <mqueue.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile int got, code, value, from_pid, from_uid;

static void handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got = sig;
    code = si->si_code;
    value = si->si_value.sival_int;
    from_pid = si->si_pid;
    from_uid = si->si_uid;
}

static void show_state(mqd_t q, const char *label)
{
    char text[128];
    ssize_t n = pread(q, text, sizeof text, 0);
    if (n < 0)
        n = read(q, text, sizeof text);
    /* NOTIFY_PID varies: cut before it, say whether it is ours. */
    char *p = n > 0 ? strstr(text, "NOTIFY_PID:") : 0;
    if (!p) {
        out("%s: %s", label, n < 0 ? errname(errno) : "?");
        return;
    }
    int pid = atoi(p + 11);
    *p = 0;
    out("%s: [%s] pid is mine: %s", label, text, yesno(pid == getpid()));
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, 0);
    mq_unlink("/kevlar-mq-notify");
    mqd_t q = mq_open("/kevlar-mq-notify", O_RDWR | O_CREAT | O_NONBLOCK, 0600, 0);
    show_state(q, "fresh");
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    ev.sigev_value.sival_int = 4242;
    check("register", mq_notify(q, &ev));
    check("register again", mq_notify(q, &ev));
    /* mq_open's descriptor is close-on-exec, and the file's read shows
     * the registration. */
    char text[128];
    lseek(q, 0, SEEK_SET);
    ssize_t n = read(q, text, sizeof text);
    out("read gives a line: %s", yesno(n > 0 && text[n - 1] == '\n'));

    pid_t pid = fork();
    if (pid == 0) {
        mqd_t c = mq_open("/kevlar-mq-notify", O_WRONLY);
        struct sigevent e2 = ev;
        out("child registers: %s", mq_notify(c, &e2) < 0 ? errname(errno) : "ok");
        _exit(mq_send(c, "x", 1, 0) == 0 ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child: %s", wstatus(st));
    for (int i = 0; i < 1000 && !got; i++)
        usleep(1000);
    out("signal %s code SI_MESGQ %s value %d pid is the child %s uid %d", signame(got), yesno(code == SI_MESGQ),
        value, yesno(from_pid == pid), from_uid);
    got = 0;
    check("send to non-empty", mq_send(q, "y", 1, 0));
    out("no second signal: %s", yesno(!got));
    char buf[8192];
    mq_receive(q, buf, sizeof buf, 0);
    mq_receive(q, buf, sizeof buf, 0);
    check("send to empty, unregistered", mq_send(q, "z", 1, 0));
    out("no signal: %s", yesno(!got));
    mq_receive(q, buf, sizeof buf, 0);

    check("register again", mq_notify(q, &ev));
    check("unregister", mq_notify(q, 0));
    check("unregister twice", mq_notify(q, 0));
    mq_send(q, "z", 1, 0);
    out("no signal after unregister: %s", yesno(!got));
    mq_receive(q, buf, sizeof buf, 0);

    ev.sigev_notify = SIGEV_NONE;
    check("SIGEV_NONE", mq_notify(q, &ev));
    show_state(q, "SIGEV_NONE registered");
    mq_send(q, "z", 1, 0);
    show_state(q, "after a message");
    mq_receive(q, buf, sizeof buf, 0);

    /* A receiver asleep in mq_receive gets the message; no signal. */
    ev.sigev_notify = SIGEV_SIGNAL;
    check("register", mq_notify(q, &ev));
    show_state(q, "SIGEV_SIGNAL registered");
    struct mq_attr blocking = {0, 0, 0, 0};
    mq_setattr(q, &blocking, 0);
    pid = fork();
    if (pid == 0) {
        mqd_t c = mq_open("/kevlar-mq-notify", O_RDONLY);
        ssize_t r = mq_receive(c, buf, sizeof buf, 0);
        _exit(r == 1 ? 0 : 1);
    }
    out("receiver asleep: %s", yesno(wait_sleeping(pid)));
    mq_send(q, "w", 1, 0);
    waitpid(pid, &st, 0);
    out("receiver: %s", wstatus(st));
    usleep(20000);
    out("no signal with a receiver waiting: %s", yesno(!got));
    show_state(q, "still registered");

    ev.sigev_notify = 77;
    check("bad sigev_notify", mq_notify(q, &ev));
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = 65;
    check("signal 65", mq_notify(q, &ev));
    check("bad descriptor", mq_notify(-1, 0));
    check("not a queue", mq_notify(0, 0));
    rcheck("bad sigevent", rawsys(SYS_mq_notify, q, 16, 0, 0, 0, 0));
    char cookie[32] = {0};
    struct sigevent th = {0};
    th.sigev_notify = SIGEV_THREAD;
    th.sigev_signo = 1000;
    th.sigev_value.sival_ptr = cookie;
    rcheck("SIGEV_THREAD bad fd", rawsys(SYS_mq_notify, q, (long)&th, 0, 0, 0, 0));
    th.sigev_signo = 0;
    rcheck("SIGEV_THREAD not a socket", rawsys(SYS_mq_notify, q, (long)&th, 0, 0, 0, 0));
    th.sigev_value.sival_ptr = (void *)16;
    rcheck("SIGEV_THREAD bad cookie", rawsys(SYS_mq_notify, q, (long)&th, 0, 0, 0, 0));
    /* Closing the owner's descriptor drops the registration. */
    close(q);
    q = mq_open("/kevlar-mq-notify", O_RDWR);
    show_state(q, "after close");
    mq_unlink("/kevlar-mq-notify");
    return 0;
}
