/* Hangups. When the master closes, the slave hangs up: reads return end of
 * file, writes fail with EIO, poll reports everything, the session loses
 * its controlling terminal, its leader gets SIGHUP then SIGCONT, and the
 * /dev/pts entry goes away. When every slave file closes, the master reads
 * what is left, then EIO, and polls POLLHUP. When the leader of a pty's
 * session exits, the foreground group gets SIGHUP. */
#include "pty.h"

static const char *next_signal(const sigset_t *set, int ms)
{
    struct timespec limit = { ms / 1000, (long)(ms % 1000) * 1000000L };
    int sig = sigtimedwait(set, NULL, &limit);
    return sig > 0 ? signame(sig) : "none";
}

static void master_closes(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    unlockpt(m);
    char name[64];
    ptsname_r(m, name, sizeof name);
    int ready[2], go[2];
    pipe(ready);
    pipe(go);
    pid_t leader = fork();
    if (leader == 0) {
        close(m); /* only the parent holds the master */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGHUP);
        sigaddset(&set, SIGCONT);
        sigprocmask(SIG_BLOCK, &set, NULL);
        setsid();
        int s = open(name, O_RDWR);
        int member_go[2];
        pipe(member_go);
        pid_t member = fork();
        if (member == 0) {
            char c;
            read(member_go[0], &c, 1);
            out("member signal: %s", next_signal(&set, 300));
            _exit(0);
        }
        write(ready[1], "r", 1);
        char c;
        read(go[0], &c, 1); /* the master is closed now */
        out("leader signal: %s", next_signal(&set, 2000));
        out("leader signal: %s", next_signal(&set, 2000));
        out("leader signal: %s", next_signal(&set, 300));
        char buf[16];
        show("read after hangup", read(s, buf, sizeof buf));
        show("write after hangup", write(s, "x", 1));
        struct pollfd p = { .fd = s, .events = POLLIN | POLLOUT };
        poll(&p, 1, 0);
        out("poll: IN %d OUT %d ERR %d HUP %d", !!(p.revents & POLLIN), !!(p.revents & POLLOUT),
            !!(p.revents & POLLERR), !!(p.revents & POLLHUP));
        struct termios t;
        show("tcgetattr after hangup", tcgetattr(s, &t));
        pid_t pg = 1;
        show("TIOCSPGRP after hangup", ioctl(s, TIOCSPGRP, &pg));
        int tty = open("/dev/tty", O_RDWR);
        out("/dev/tty after hangup: %s", tty >= 0 ? "opens" : errname(errno));
        show("reopen the slave", open(name, O_RDWR | O_NOCTTY));
        write(member_go[1], "m", 1);
        waitpid(member, NULL, 0);
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    type(m, "pending\n");
    sleep_ms(200);
    close(m);
    write(go[1], "g", 1);
    int status;
    waitpid(leader, &status, 0);
    out("leader: %s", wait_desc(status));
}

static void slave_closes(void)
{
    int m, s;
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return;
    char name[64];
    ptsname_r(m, name, sizeof name);
    write(s, "bye\n", 4);
    close(s);
    struct pollfd p = { .fd = m, .events = POLLIN | POLLOUT };
    poll(&p, 1, 1000);
    out("master poll with data: IN %d OUT %d HUP %d", !!(p.revents & POLLIN), !!(p.revents & POLLOUT),
        !!(p.revents & POLLHUP));
    /* Linux hands the echo-processed "bye\r\n" to the master in one or two
     * pieces, depending on timing: gather what arrives before the hangup
     * shows (EIO), so only the data and the final error are printed. */
    char got[100];
    size_t have = 0;
    ssize_t n;
    while (have < sizeof got && (n = read(m, got + have, sizeof got - have)) > 0)
        have += n;
    int err = errno;
    out("master read: %zu \"%s\"", have, escaped(got, (int)have));
    if (have < sizeof got)
        out("master read again: -1 %s", errname(err));
    poll(&p, 1, 0);
    out("master poll drained: IN %d OUT %d HUP %d", !!(p.revents & POLLIN), !!(p.revents & POLLOUT),
        !!(p.revents & POLLHUP));
    show("master write", write(m, "in\n", 3));
    s = open(name, O_RDWR | O_NOCTTY);
    show("reopen slave", s >= 0 ? 0 : -1);
    show_read("slave reads what the master wrote", s, 100);
    poll(&p, 1, 0);
    out("master poll after reopen: IN %d OUT %d HUP %d", !!(p.revents & POLLIN), !!(p.revents & POLLOUT),
        !!(p.revents & POLLHUP));
    write(s, "again\n", 6);
    show_output("master", m);
    close(s);
    close(m);
}

static void leader_exits(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    unlockpt(m);
    char name[64];
    ptsname_r(m, name, sizeof name);
    int done[2], go[2];
    pipe(done);
    pipe(go);
    pid_t leader = fork();
    if (leader == 0) {
        close(m);
        setsid();
        int s = open(name, O_RDWR);
        int ready[2];
        pipe(ready);
        pid_t job = fork();
        if (job == 0) {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGHUP);
            sigaddset(&set, SIGCONT);
            sigprocmask(SIG_BLOCK, &set, NULL);
            setpgid(0, 0);
            write(ready[1], "r", 1);
            char g;
            read(go[0], &g, 1); /* the leader has exited */
            out("job signal: %s", next_signal(&set, 3000));
            out("job signal: %s", next_signal(&set, 300));
            int tty = open("/dev/tty", O_RDWR);
            out("job's /dev/tty: %s", tty >= 0 ? "opens" : errname(errno));
            write(done[1], "d", 1);
            _exit(0);
        }
        setpgid(job, job);
        char c;
        read(ready[0], &c, 1);
        tcsetpgrp(s, job);
        _exit(0);
    }
    int status;
    waitpid(leader, &status, 0);
    out("leader: %s", wait_desc(status));
    write(go[1], "g", 1);
    char c;
    read(done[0], &c, 1);
    close(m);
}

int main(void)
{
    out("-- master closes");
    master_closes();
    out("-- slave closes");
    slave_closes();
    out("-- session leader exits");
    leader_exits();
    return 0;
}
