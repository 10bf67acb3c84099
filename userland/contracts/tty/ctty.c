/* The controlling terminal: a session leader opening a terminal without
 * O_NOCTTY gets it (then /dev/tty works, TIOCGSID and tcgetpgrp answer);
 * with O_NOCTTY it does not, until TIOCSCTTY; a second session cannot take
 * it; non-leaders cannot acquire one; children inherit it; setsid and
 * TIOCNOTTY drop it; /dev/console never becomes one. */
#include "pty.h"

static void report(const char *label, int fd)
{
    int t = open("/dev/tty", O_RDWR);
    out("%s: /dev/tty %s", label, t >= 0 ? "opens" : errname(errno));
    if (t >= 0)
        close(t);
    pid_t sid = -1;
    int r = ioctl(fd, TIOCGSID, &sid);
    out("%s: TIOCGSID %s", label, r == 0 ? (sid == getsid(0) ? "own session" : "other session") : errname(errno));
    pid_t pgrp = tcgetpgrp(fd);
    out("%s: tcgetpgrp %s", label, pgrp >= 0 ? (pgrp == getpgrp() ? "own group" : "other group") : errname(errno));
}

static int run(void (*body)(const char *), const char *name)
{
    pid_t pid = fork();
    if (pid == 0) {
        body(name);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return status;
}

static void opens_it(const char *name)
{
    setsid();
    report("before", open(name, O_RDWR | O_NOCTTY));
    int fd = open(name, O_RDWR);
    report("after open", fd);
    /* /dev/tty is the same terminal. */
    int t = open("/dev/tty", O_RDWR);
    struct stat a, b;
    fstat(t, &a);
    fstat(fd, &b);
    out("/dev/tty rdev is 5:0: %s", major(a.st_rdev) == 5 && minor(a.st_rdev) == 0 ? "yes" : "no");
    out("slave rdev differs: %s", a.st_rdev != b.st_rdev ? "yes" : "no");
    struct winsize ws = { 7, 9, 0, 0 };
    ioctl(fd, TIOCSWINSZ, &ws);
    struct winsize got = { 0, 0, 0, 0 };
    ioctl(t, TIOCGWINSZ, &got);
    out("/dev/tty sees the winsize: %d x %d", got.ws_row, got.ws_col);
    /* A child inherits it; a non-leader cannot take another. */
    pid_t c = fork();
    if (c == 0) {
        report("child", fd);
        show("child TIOCSCTTY", ioctl(fd, TIOCSCTTY, 0));
        _exit(0);
    }
    waitpid(c, NULL, 0);
    show("TIOCSCTTY again (own)", ioctl(fd, TIOCSCTTY, 0));
    /* A child that starts a new session loses it. */
    c = fork();
    if (c == 0) {
        setsid();
        report("after setsid", fd);
        show("TIOCSCTTY taken by another session", ioctl(fd, TIOCSCTTY, 0));
        _exit(0);
    }
    waitpid(c, NULL, 0);
    /* Give it up: the foreground group (ours) gets SIGHUP and SIGCONT. */
    signal(SIGHUP, SIG_IGN);
    show("TIOCNOTTY", ioctl(fd, TIOCNOTTY));
    report("after TIOCNOTTY", fd);
    show("TIOCNOTTY again", ioctl(fd, TIOCNOTTY));
    /* Now free: TIOCSCTTY takes it back. */
    show("TIOCSCTTY", ioctl(fd, TIOCSCTTY, 0));
    report("after TIOCSCTTY", fd);
}

static void noctty_then_ioctl(const char *name)
{
    setsid();
    int fd = open(name, O_RDWR | O_NOCTTY);
    report("O_NOCTTY", fd);
    show("TIOCSCTTY", ioctl(fd, TIOCSCTTY, 0));
    report("after TIOCSCTTY", fd);
    /* A leader with a terminal cannot take a second one. */
    int m2 = posix_openpt(O_RDWR | O_NOCTTY);
    unlockpt(m2);
    int other = open(ptsname(m2), O_RDWR | O_NOCTTY);
    show("TIOCSCTTY on a second terminal", ioctl(other, TIOCSCTTY, 0));
    int again = open(ptsname(m2), O_RDWR);
    show("open second without O_NOCTTY", again >= 0 ? 0 : -1);
    pid_t sid = 0;
    show("second has no session", ioctl(again, TIOCGSID, &sid));
}

static void not_leader(const char *name)
{
    int fd = open(name, O_RDWR);
    report("not a session leader", fd);
    show("TIOCSCTTY", ioctl(fd, TIOCSCTTY, 0));
}

static void console(const char *name)
{
    (void)name;
    setsid();
    int fd = open("/dev/console", O_RDWR);
    out("open /dev/console: %s", fd >= 0 ? "ok" : errname(errno));
    int t = open("/dev/tty", O_RDWR);
    out("/dev/tty after opening /dev/console: %s", t >= 0 ? "opens" : errname(errno));
}

static void master_is_not(const char *name)
{
    (void)name;
    setsid();
    int m = posix_openpt(O_RDWR);
    out("open /dev/ptmx without O_NOCTTY: %s", m >= 0 ? "ok" : errname(errno));
    int t = open("/dev/tty", O_RDWR);
    out("/dev/tty after opening a master: %s", t >= 0 ? "opens" : errname(errno));
}

int main(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) || unlockpt(m)) {
        out("no pty: %s", errname(errno));
        return 0;
    }
    char name[64];
    ptsname_r(m, name, sizeof name);
    /* This process leads a session without a terminal. */
    report("test process", open(name, O_RDWR | O_NOCTTY));
    out("status: %s", wait_desc(run(opens_it, name)));
    out("status: %s", wait_desc(run(noctty_then_ioctl, name)));
    out("status: %s", wait_desc(run(not_leader, name)));
    out("status: %s", wait_desc(run(console, name)));
    out("status: %s", wait_desc(run(master_is_not, name)));
    close(m);
    return 0;
}
