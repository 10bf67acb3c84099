/* TIOCVHANGUP (what vhangup(2) does to the caller's terminal) on a pty
 * slave: only with CAP_SYS_ADMIN (EPERM without); the terminal hangs up
 * as when its master closes: the files opened before read end of file,
 * fail writes with EIO and further ioctls with EIO, the session loses its
 * controlling terminal and its leader gets SIGHUP then SIGCONT, while the
 * foreground group gets nothing yet. When that leader exits later, the
 * group that was in the foreground at the hangup gets SIGHUP and SIGCONT
 * (Linux's tty_old_pgrp). On a master it hangs up the master's own
 * files: end of file, EIO for writes and ioctls, every poll event. */
#include "pty.h"

static const char *next_signal(const sigset_t *set, int ms)
{
    struct timespec limit = { ms / 1000, (long)(ms % 1000) * 1000000L };
    int sig = sigtimedwait(set, NULL, &limit);
    return sig > 0 ? signame(sig) : "none";
}

static void not_admin(int m, const char *name)
{
    pid_t pid = fork();
    if (pid == 0) {
        int s = open(name, O_RDWR | O_NOCTTY);
        setgid(65534);
        setuid(65534);
        show("TIOCVHANGUP without CAP_SYS_ADMIN", ioctl(s, TIOCVHANGUP));
        show("TIOCVHANGUP of the master without CAP_SYS_ADMIN", ioctl(m, TIOCVHANGUP));
        struct termios t;
        show("then tcgetattr", tcgetattr(s, &t));
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    out("unprivileged child: %s", wait_desc(status));
}

/* On a master: the master's own files hang up; the slave goes on. */
static void master_hangs_up(void)
{
    int m, s;
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return;
    show("master TIOCVHANGUP", ioctl(m, TIOCVHANGUP));
    char buf[16];
    show("master read after", read(m, buf, sizeof buf));
    show("master write after", write(m, "x", 1));
    struct pollfd p = { .fd = m, .events = POLLIN | POLLOUT };
    poll(&p, 1, 0);
    out("master poll: IN %d OUT %d ERR %d HUP %d", !!(p.revents & POLLIN), !!(p.revents & POLLOUT),
        !!(p.revents & POLLERR), !!(p.revents & POLLHUP));
    int n;
    show("master TIOCGPTN after", ioctl(m, TIOCGPTN, &n));
    struct termios t;
    show("slave tcgetattr after", tcgetattr(s, &t));
    close(s);
    close(m);
}

int main(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    unlockpt(m);
    char name[64];
    ptsname_r(m, name, sizeof name);
    not_admin(m, name);

    int ready[2], go[2], checked[2], done[2];
    pipe(ready);
    pipe(go);
    pipe(checked);
    pipe(done);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCONT);
    pid_t leader = fork();
    if (leader == 0) {
        close(m);
        sigprocmask(SIG_BLOCK, &set, NULL);
        setsid();
        int s = open(name, O_RDWR);
        pid_t job = fork();
        if (job == 0) {
            setpgid(0, 0);
            write(ready[1], "r", 1);
            char c;
            read(go[0], &c, 1); /* the hangup is done */
            out("job signal after the hangup: %s", next_signal(&set, 300));
            write(checked[1], "c", 1);
            read(go[0], &c, 1); /* the leader has exited */
            out("job signal: %s", next_signal(&set, 3000));
            out("job signal: %s", next_signal(&set, 3000));
            out("job signal: %s", next_signal(&set, 300));
            write(done[1], "d", 1);
            _exit(0);
        }
        setpgid(job, job);
        char c;
        read(ready[0], &c, 1);
        show("tcsetpgrp to the job", tcsetpgrp(s, job));
        show("TIOCVHANGUP", ioctl(s, TIOCVHANGUP));
        out("leader signal: %s", next_signal(&set, 2000));
        out("leader signal: %s", next_signal(&set, 2000));
        out("leader signal: %s", next_signal(&set, 300));
        char buf[16];
        show("read after the hangup", read(s, buf, sizeof buf));
        show("write after the hangup", write(s, "x", 1));
        struct termios t;
        show("tcgetattr after the hangup", tcgetattr(s, &t));
        show("TIOCVHANGUP again", ioctl(s, TIOCVHANGUP));
        int tty = open("/dev/tty", O_RDWR);
        out("/dev/tty after the hangup: %s", tty >= 0 ? "opens" : errname(errno));
        write(go[1], "g", 1);
        read(checked[0], &c, 1);
        _exit(0);
    }
    int status;
    waitpid(leader, &status, 0);
    out("leader: %s", wait_desc(status));
    write(go[1], "g", 1);
    char c;
    read(done[0], &c, 1);
    close(m);
    master_hangs_up();
    return 0;
}
