/* PID namespaces at the boundaries: the pid SCM_CREDENTIALS carries, the
 * pid SO_PEERCRED reports, si_pid of kill's signals and of SIGCHLD, and a
 * pidfd's fdinfo are numbered as the receiver's namespace sees the sender
 * (0 when it cannot see it); a process may claim its own inside number in
 * SCM_CREDENTIALS, and a pid the namespace does not have is ESRCH. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>

static pid_t recv_cred_pid(int fd)
{
    char data[8];
    char cbuf[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = { data, sizeof data };
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = cbuf;
    m.msg_controllen = sizeof cbuf;
    if (recvmsg(fd, &m, 0) < 0)
        return -1000 - errno;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
        return -999;
    struct ucred u;
    memcpy(&u, CMSG_DATA(c), sizeof u);
    return u.pid;
}

static long send_cred(int fd, pid_t pid)
{
    struct ucred u = { pid, getuid(), getgid() };
    char cbuf[CMSG_SPACE(sizeof u)];
    struct iovec iov = { "x", 1 };
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = cbuf;
    m.msg_controllen = sizeof cbuf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_CREDENTIALS;
    c->cmsg_len = CMSG_LEN(sizeof u);
    memcpy(CMSG_DATA(c), &u, sizeof u);
    return sendmsg(fd, &m, 0);
}

static void fdinfo_pid(const char *who, int fd)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    int f = open(path, O_RDONLY);
    ssize_t n = f < 0 ? -1 : read_full(f, buf, sizeof buf - 1);
    if (f >= 0)
        close(f);
    buf[n < 0 ? 0 : n] = 0;
    char *p = strstr(buf, "NSpid:");
    int cols = 0;
    char *last = "";
    if (p) {
        char *end = strchr(p, '\n');
        if (end)
            *end = 0;
        for (char *t = strtok(p + 6, "\t "); t; t = strtok(NULL, "\t ")) {
            cols++;
            last = t;
        }
    }
    out("%s: pidfd NSpid %d columns, last %s", who, cols, last);
}

int main(void)
{
    int sv[2], one = 1;
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
        return 1;
    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    int st[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, st) < 0)
        return 1;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    pid_t child = fork();
    if (child == 0) {
        struct ucred u;
        socklen_t len = sizeof u;
        getsockopt(st[1], SOL_SOCKET, SO_PEERCRED, &u, &len);
        out("child: SO_PEERCRED pid (made outside) %d", u.pid);
        check("child: send claiming pid 77", send_cred(sv[1], 77));
        check("child: send claiming its inside number 1", send_cred(sv[1], 1));
        out("child: received from outside, pid %d", recv_cred_pid(sv[1]));
        siginfo_t si;
        sigwaitinfo(&set, &si);
        out("child: %s from si_pid %d", signame(si.si_signo), si.si_pid);
        pid_t g = fork();
        if (g == 0)
            _exit(0);
        sigwaitinfo(&set, &si);
        out("child: %s from si_pid %d", signame(si.si_signo), si.si_pid);
        waitpid(g, NULL, 0);
        /* fdinfo shows pids as the namespace of the procfs numbers them */
        unshare(CLONE_NEWNS);
        mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
        mount("proc", "/proc", "proc", 0, NULL);
        int pfd = syscall(SYS_pidfd_open, 1, 0);
        fdinfo_pid("child", pfd);
        kill(0, SIGUSR1);
        _exit(0);
    }
    pid_t got = recv_cred_pid(sv[0]);
    long sent = send_cred(sv[0], getpid());
    long killed = kill(child, SIGUSR1);
    siginfo_t si;
    sigwaitinfo(&set, &si);
    int usr1_pid = si.si_signo == SIGUSR1 ? si.si_pid : -1;
    int pfd = syscall(SYS_pidfd_open, child, 0);
    int status;
    waitpid(child, &status, 0);
    out("parent: credentials name the child: %s", yesno(got == child));
    out("parent: send: %s, kill: %s", sent < 0 ? errname(errno) : "ok", killed < 0 ? errname(errno) : "ok");
    /* kill's si_pid is the sender's own number when the receiver sees it */
    if (usr1_pid == child)
        out("parent: SIGUSR1 si_pid: the child's outside number");
    else
        out("parent: SIGUSR1 si_pid: %d", usr1_pid);
    out("parent: child %s", wstatus(status));
    (void)pfd;
    return 0;
}
