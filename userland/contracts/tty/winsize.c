/* Window size: TIOCSWINSZ on either side sets the slave's size, which both
 * sides read back; a change sends SIGWINCH (from the kernel) to the
 * foreground process group, setting the same size again does not. */
#include "pty.h"

int main(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) || unlockpt(m)) {
        out("no pty: %s", errname(errno));
        return 0;
    }
    char name[64];
    ptsname_r(m, name, sizeof name);
    int to_child[2], from_child[2];
    pipe(to_child);
    pipe(from_child);
    pid_t pid = fork();
    if (pid == 0) {
        close(m);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGWINCH);
        sigprocmask(SIG_BLOCK, &set, NULL);
        setsid();
        int s = open(name, O_RDWR);
        write(from_child[1], "r", 1);
        char cmd;
        while (read(to_child[0], &cmd, 1) == 1 && cmd == 'w') {
            struct timespec limit = { 0, 400 * 1000 * 1000 };
            siginfo_t info;
            int sig = sigtimedwait(&set, &info, &limit);
            struct winsize ws;
            ioctl(s, TIOCGWINSZ, &ws);
            char reply[64];
            int n = snprintf(reply, sizeof reply, "%s%s, slave sees %dx%d", sig > 0 ? signame(sig) : "no signal",
                             sig > 0 && info.si_code == SI_KERNEL ? " (SI_KERNEL)" : "", ws.ws_row, ws.ws_col);
            write(from_child[1], reply, (size_t)n);
        }
        _exit(0);
    }
    char c;
    read(from_child[0], &c, 1);
    int s = open(name, O_RDWR | O_NOCTTY);
    struct {
        const char *label;
        int fd;
        unsigned short rows, cols;
    } steps[] = {
        { "master sets 24x80", m, 24, 80 },
        { "same again", m, 24, 80 },
        { "slave sets 50x132", s, 50, 132 },
        { "master sets 50x133", m, 50, 133 },
    };
    for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        struct winsize ws = { steps[i].rows, steps[i].cols, 0, 0 };
        check(steps[i].label, ioctl(steps[i].fd, TIOCSWINSZ, &ws));
        write(to_child[1], "w", 1);
        char reply[64] = { 0 };
        read(from_child[0], reply, sizeof reply - 1);
        out("  child: %s", reply);
        struct winsize got;
        ioctl(m, TIOCGWINSZ, &got);
        out("  master sees %dx%d", got.ws_row, got.ws_col);
    }
    struct winsize px = { 10, 20, 640, 480 };
    ioctl(m, TIOCSWINSZ, &px);
    struct winsize got;
    ioctl(s, TIOCGWINSZ, &got);
    out("pixels kept: %dx%d", got.ws_xpixel, got.ws_ypixel);
    show("TIOCGWINSZ bad pointer", ioctl(s, TIOCGWINSZ, (void *)8));
    show("TIOCSWINSZ bad pointer", ioctl(s, TIOCSWINSZ, (void *)8));
    write(to_child[1], "q", 1);
    int status;
    waitpid(pid, &status, 0);
    out("child: %s", wait_desc(status));
    close(s);
    close(m);
    return 0;
}
