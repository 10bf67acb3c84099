/* si_uid across user namespaces: a signal's sender uid is renumbered for
 * the receiver's namespace (the overflow id 65534 when it does not map
 * it), kill's and a made-up SI_QUEUE siginfo's alike; SIGCHLD and waitid
 * give a child's uid as the parent's namespace sees it; a process that
 * became root of its own namespace (ids 0..999 = 100000..100999) cannot
 * signal root outside, and /proc/PID/status shows each side's ids as the
 * reader's namespace sees them. A message queue's notification signal
 * (SI_MESGQ) carries the sender's uid as the registered process's
 * namespace sees it, which Linux then maps a second time as an id of the
 * sender's namespace: 65534 for root outside and for uid 100005 alike. */
#include "inner.h"
#include <mqueue.h>
#include <signal.h>
#include <sys/wait.h>

static void show_info(const char *label, const siginfo_t *si)
{
    out("%s: %s code %d uid %d", label, signame(si->si_signo), si->si_code, (int)si->si_uid);
}

static int take(const char *label, int sig)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    siginfo_t si;
    int r = sigwaitinfo(&set, &si);
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return -1;
    }
    show_info(label, &si);
    return 0;
}

static long queue_claiming(pid_t pid, int sig, uid_t uid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = uid;
    si.si_value.sival_int = 7;
    return syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
}

static void status_ids(const char *label, pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read_full(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    buf[n] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4)) {
            for (char *t = line; *t; t++)
                if (*t == '\t')
                    *t = ' ';
            out("%s %s", label, line);
        }
}

int main(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGRTMIN);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);

    struct mapper m;
    mapper_init(&m);
    static const char QUEUE[] = "/userns-signal-uid";
    mq_unlink(QUEUE);
    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 16};
    mqd_t q = mq_open(QUEUE, O_CREAT | O_EXCL | O_WRONLY, 0666, &attr);
    if (q == (mqd_t)-1)
        out("mq_open: %s", errname(errno));
    pid_t outer = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (inner_enter(&m) < 0)
            _exit(1);
        out("inside: uid %d gid %d", (int)getuid(), (int)getgid());
        inner_ready(&m);
        inner_wait(&m);
        take("inside, kill from root outside", SIGUSR1);
        take("inside, SI_QUEUE claiming 100005", SIGRTMIN);
        take("inside, SI_QUEUE claiming 7", SIGRTMIN);
        take("inside, SI_QUEUE claiming -1", SIGRTMIN);
        kill(getpid(), SIGUSR2);
        take("inside, kill from itself", SIGUSR2);
        queue_claiming(getpid(), SIGRTMIN, 4242);
        take("inside, SI_QUEUE to itself claiming 4242", SIGRTMIN);
        pid_t g = fork();
        if (g == 0)
            _exit(3);
        take("inside, SIGCHLD of its child", SIGCHLD);
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, g, &si, WEXITED) < 0)
            out("inside, waitid: %s", errname(errno));
        else
            show_info("inside, waitid", &si);
        check("inside, kill root outside", kill(outer, SIGUSR1));
        check("inside, SI_QUEUE to root outside", queue_claiming(outer, SIGRTMIN, 0));
        status_ids("inside, status of root outside:", outer);
        status_ids("inside, status of itself:", getpid());
        mqd_t mine = mq_open(QUEUE, O_RDONLY);
        struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN};
        check("inside, mq_notify", mq_notify(mine, &ev));
        inner_ready(&m);
        inner_wait(&m);
        take("inside, SI_MESGQ of root outside's message", SIGRTMIN);
        char msg[16];
        mq_receive(mine, msg, sizeof msg, NULL);
        check("inside, mq_notify again", mq_notify(mine, &ev));
        inner_ready(&m);
        inner_wait(&m);
        take("inside, SI_MESGQ of uid 100005's message", SIGRTMIN);
        _exit(0);
    }
    mapper_serve(&m);
    root_wait(&m);
    kill(pid, SIGUSR1);
    check("SI_QUEUE claiming 100005", queue_claiming(pid, SIGRTMIN, INNER_BASE + 5));
    check("SI_QUEUE claiming 7", queue_claiming(pid, SIGRTMIN, 7));
    check("SI_QUEUE claiming -1", queue_claiming(pid, SIGRTMIN, (uid_t)-1));
    root_go(&m);
    root_wait(&m);
    status_ids("outside, status of the inner process:", pid);
    check("mq_send", mq_send(q, "a", 1, 0));
    root_go(&m);
    root_wait(&m);
    pid_t sender = fork();
    if (sender == 0) {
        if (setresuid(INNER_BASE + 5, INNER_BASE + 5, INNER_BASE + 5) < 0 || mq_send(q, "b", 1, 0) < 0)
            _exit(1);
        _exit(0);
    }
    reap("uid 100005's mq_send", sender);
    take("outside, SIGCHLD of uid 100005's process", SIGCHLD);
    root_go(&m);
    take("outside, SIGCHLD of the inner process", SIGCHLD);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, pid, &si, WEXITED) < 0)
        out("outside, waitid: %s", errname(errno));
    else
        show_info("outside, waitid", &si);
    struct timespec none = {0, 0};
    mq_unlink(QUEUE);
    out("outside, signals left: %s", sigtimedwait(&set, NULL, &none) < 0 ? errname(errno) : "some");
    return 0;
}
