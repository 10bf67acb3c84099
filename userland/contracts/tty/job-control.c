/* Background process groups and their controlling terminal: reading sends
 * SIGTTIN (EIO when it is ignored, or the group is orphaned); writing is
 * allowed unless TOSTOP, which sends SIGTTOU (ignored: the write goes on);
 * changing the settings sends SIGTTOU; a handler without SA_RESTART makes
 * the read fail with EINTR; tcsetpgrp moves the foreground. */
#include "pty.h"

static int tty;

static void on_signal(int sig)
{
    (void)sig;
}

/* Runs `job` in a new background process group of this session and prints
 * how it ended (or stopped). */
static void background(const char *label, void (*job)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        job();
        _exit(0);
    }
    setpgid(pid, pid);
    int status = 0;
    waitpid(pid, &status, WUNTRACED);
    out("%s: %s", label, wait_desc(status));
    if (WIFSTOPPED(status)) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
}

static void job_read(void)
{
    char c;
    show("read", read(tty, &c, 1));
}

static void job_read_ignoring(void)
{
    signal(SIGTTIN, SIG_IGN);
    job_read();
}

static void job_read_blocking(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTTIN);
    sigprocmask(SIG_BLOCK, &set, NULL);
    job_read();
}

static void job_read_handler(void)
{
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGTTIN, &sa, NULL);
    job_read();
}

static void job_write(void)
{
    show("write", write(tty, "bg\n", 3));
}

static void job_write_ignoring(void)
{
    signal(SIGTTOU, SIG_IGN);
    job_write();
}

static void job_tcsetattr(void)
{
    struct termios t;
    tcgetattr(tty, &t);
    check("tcsetattr", tcsetattr(tty, TCSANOW, &t));
}

static void job_tcgetattr(void)
{
    struct termios t;
    check("tcgetattr", tcgetattr(tty, &t));
    out("tcgetpgrp is the foreground: %s", tcgetpgrp(tty) == getsid(0) ? "yes" : "no");
}

static void job_take_foreground(void)
{
    signal(SIGTTOU, SIG_IGN);
    check("tcsetpgrp self", tcsetpgrp(tty, getpgrp()));
    out("now foreground: %s", tcgetpgrp(tty) == getpgrp() ? "yes" : "no");
    char c;
    show("read in foreground", read(tty, &c, 1));
}

/* A group whose only member's parent is init: orphaned. */
static void orphaned(void)
{
    int done[2];
    pipe(done);
    pid_t middle = fork();
    if (middle == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            setpgid(0, 0);
            sleep_ms(300); /* until `middle` is gone */
            char c;
            show("orphaned read", read(tty, &c, 1));
            struct termios t;
            tcgetattr(tty, &t);
            t.c_lflag |= TOSTOP;
            show("orphaned tcsetattr", tcsetattr(tty, TCSANOW, &t));
            show("orphaned write with TOSTOP", write(tty, "x", 1));
            write(done[1], "d", 1);
            _exit(0);
        }
        _exit(0);
    }
    waitpid(middle, NULL, 0);
    char c;
    read(done[0], &c, 1);
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
    pid_t leader = fork();
    if (leader == 0) {
        setsid();
        tty = open(name, O_RDWR);
        out("foreground is the leader: %s", tcgetpgrp(tty) == getpid() ? "yes" : "no");
        background("background read", job_read);
        background("read ignoring SIGTTIN", job_read_ignoring);
        background("read blocking SIGTTIN", job_read_blocking);
        background("read with a SIGTTIN handler", job_read_handler);
        background("write", job_write);
        background("tcgetattr", job_tcgetattr);
        background("tcsetattr", job_tcsetattr);
        struct termios t;
        tcgetattr(tty, &t);
        t.c_lflag |= TOSTOP;
        tcsetattr(tty, TCSANOW, &t);
        background("write with TOSTOP", job_write);
        background("write with TOSTOP ignoring SIGTTOU", job_write_ignoring);
        type(m, "k\n");
        background("take the foreground", job_take_foreground);
        out("leader in the foreground: %s", tcgetpgrp(tty) == getpid() ? "yes" : "no");
        orphaned();
        _exit(0);
    }
    int status;
    waitpid(leader, &status, 0);
    out("leader: %s", wait_desc(status));
    show_output("master got", m);
    close(m);
    return 0;
}
