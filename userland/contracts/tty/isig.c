/* Signal characters: ^C, ^\ and ^Z send SIGINT, SIGQUIT and SIGTSTP (from
 * the kernel: SI_KERNEL) to the terminal's foreground process group, echo
 * as ^C, and flush pending input unless NOFLSH; ISIG off makes them data;
 * VINTR can be changed; ^Z stops a process with the default action. */
#include "pty.h"

static int m, s, to_child[2], from_child[2];

/* The child: a session leader whose controlling terminal is the slave. It
 * waits for each signal the parent asks about, with the signals blocked,
 * and reports the number and whether the kernel sent it. */
static void child(const char *name)
{
    setsid();
    int fd = open(name, O_RDWR);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGTSTP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    char ready = fd >= 0 ? 'R' : 'E';
    write(from_child[1], &ready, 1);
    char cmd;
    while (read(to_child[0], &cmd, 1) == 1) {
        if (cmd == 'w') {
            struct timespec limit = { 3, 0 };
            siginfo_t info;
            int sig = sigtimedwait(&set, &info, &limit);
            char reply[2] = { (char)(sig > 0 ? sig : 0), (char)(sig > 0 && info.si_code == SI_KERNEL) };
            write(from_child[1], reply, 2);
        } else if (cmd == 'z') {
            /* A job in its own group in the foreground takes ^Z with the
             * default action and stops. (The session leader's own group is
             * orphaned, its parent being outside the session: stop signals
             * from the terminal are discarded there.) */
            int job_ready[2];
            pipe(job_ready);
            pid_t job = fork();
            if (job == 0) {
                setpgid(0, 0);
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                write(job_ready[1], "j", 1);
                for (;;)
                    pause();
            }
            setpgid(job, job);
            char j;
            read(job_ready[0], &j, 1);
            tcsetpgrp(fd, job);
            write(from_child[1], "z", 1);
            int status = 0;
            waitpid(job, &status, WUNTRACED);
            /* Back to the foreground: SIGTTOU is blocked, so no stop. */
            sigset_t ttou;
            sigemptyset(&ttou);
            sigaddset(&ttou, SIGTTOU);
            sigprocmask(SIG_BLOCK, &ttou, NULL);
            tcsetpgrp(fd, getpgrp());
            kill(job, SIGKILL);
            int end = 0;
            waitpid(job, &end, 0);
            char reply[2] = { (char)WIFSTOPPED(status), (char)(WIFSTOPPED(status) ? WSTOPSIG(status) : 0) };
            write(from_child[1], reply, 2);
        } else {
            break;
        }
    }
    _exit(0);
}

static void expect_signal(const char *label, const char *input)
{
    type(m, input);
    char cmd = 'w', reply[2] = { 0, 0 };
    write(to_child[1], &cmd, 1);
    read(from_child[0], reply, 2);
    out("%s: %s%s", label, reply[0] ? signame(reply[0]) : "none", reply[1] ? " (SI_KERNEL)" : "");
}

int main(void)
{
    m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) || unlockpt(m)) {
        out("no pty: %s", errname(errno));
        return 0;
    }
    char name[64];
    ptsname_r(m, name, sizeof name);
    pipe(to_child);
    pipe(from_child);
    pid_t pid = fork();
    if (pid == 0)
        child(name);
    char ready = 0;
    read(from_child[0], &ready, 1);
    out("child has the terminal: %s", ready == 'R' ? "yes" : "no");
    s = open(name, O_RDWR | O_NOCTTY);

    expect_signal("^C", "\x03");
    show_output("echo", m);
    expect_signal("^\\", "\x1c");
    show_output("echo", m);
    expect_signal("^Z", "\x1a");
    show_output("echo", m);

    /* Pending input goes with the signal, unless NOFLSH. */
    type(m, "lost");
    show_output("typed", m);
    expect_signal("^C after input", "\x03");
    show_output("echo", m);
    type(m, "\n");
    show_output("echo", m);
    show_read("line after flush", s, 100);

    struct termios t;
    tcgetattr(s, &t);
    t.c_lflag |= NOFLSH;
    tcsetattr(s, TCSANOW, &t);
    type(m, "kept");
    show_output("typed", m);
    expect_signal("^C with NOFLSH", "\x03");
    show_output("echo", m);
    type(m, "\n");
    show_output("echo", m);
    show_read("line with NOFLSH", s, 100);

    t.c_cc[VINTR] = 'q';
    tcsetattr(s, TCSANOW, &t);
    expect_signal("VINTR=q", "q");
    show_output("echo", m);
    t.c_cc[VINTR] = 3;
    t.c_lflag &= ~ISIG;
    tcsetattr(s, TCSANOW, &t);
    type(m, "\x03\x1c\x1a\n");
    show_output("echo without ISIG", m);
    show_read("read without ISIG", s, 100);
    t.c_lflag |= ISIG;
    tcsetattr(s, TCSANOW, &t);

    /* The default action of SIGTSTP stops the foreground job. */
    char cmd = 'z';
    write(to_child[1], &cmd, 1);
    read(from_child[0], &cmd, 1);
    type(m, "\x1a");
    char stop[2] = { 0, 0 };
    read(from_child[0], stop, 2);
    out("job stopped: %s by %s", stop[0] ? "yes" : "no", signame(stop[1]));
    show_output("echo", m);
    cmd = 'q';
    int status = 0;
    write(to_child[1], &cmd, 1);
    waitpid(pid, &status, 0);
    out("child: %s", wait_desc(status));
    close(s);
    close(m);
    return 0;
}
