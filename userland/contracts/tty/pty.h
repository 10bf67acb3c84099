/* Helpers for the terminal tests: pseudo-terminal pairs (deterministic,
 * unlike the serial console), escaped display of what a side receives, and
 * small waits.
 *
 * Data written to one side reaches the other asynchronously on Linux (a
 * work queue moves it), so readers here wait with poll() and a timeout
 * rather than reading without blocking.
 */
#ifndef CONTRACTS_TTY_PTY_H
#define CONTRACTS_TTY_PTY_H

#include "common.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>

/* Opens a pair: the master with O_RDWR|O_NOCTTY, the slave with O_RDWR and
 * `slave_flags` (O_NOCTTY unless the caller wants a controlling terminal).
 * Returns 0, or -1 after printing why. */
static int open_pty(int *master, int *slave, int slave_flags) __attribute__((unused));
static int open_pty(int *master, int *slave, int slave_flags)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0) {
        out("posix_openpt: %s", errname(errno));
        return -1;
    }
    if (grantpt(m) != 0 || unlockpt(m) != 0) {
        out("grantpt/unlockpt: %s", errname(errno));
        close(m);
        return -1;
    }
    char *name = ptsname(m);
    if (!name) {
        out("ptsname: %s", errname(errno));
        close(m);
        return -1;
    }
    int s = open(name, O_RDWR | slave_flags);
    if (s < 0) {
        out("open slave: %s", errname(errno));
        close(m);
        return -1;
    }
    *master = m;
    *slave = s;
    return 0;
}

/* `n` bytes as C-style escapes: printable as is, \r \n \t \\, else \xNN. */
static const char *escaped(const char *buf, int n) __attribute__((unused));
static const char *escaped(const char *buf, int n)
{
    static char text[2048];
    size_t at = 0;
    for (int i = 0; i < n && at + 5 < sizeof text; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\r')
            at += (size_t)snprintf(text + at, sizeof text - at, "\\r");
        else if (c == '\n')
            at += (size_t)snprintf(text + at, sizeof text - at, "\\n");
        else if (c == '\t')
            at += (size_t)snprintf(text + at, sizeof text - at, "\\t");
        else if (c == '\\')
            at += (size_t)snprintf(text + at, sizeof text - at, "\\\\");
        else if (c >= 0x20 && c < 0x7f)
            text[at++] = (char)c;
        else
            at += (size_t)snprintf(text + at, sizeof text - at, "\\x%02x", c);
    }
    text[at] = 0;
    return text;
}

/* Reads everything that arrives on `fd` until it has been quiet for a
 * while (waiting up to `first_ms` for the first byte); returns the count. */
static int drain(int fd, char *buf, int cap, int first_ms) __attribute__((unused));
static int drain(int fd, char *buf, int cap, int first_ms)
{
    int got = 0;
    int wait_ms = first_ms;
    while (got < cap) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, wait_ms);
        if (r <= 0 || !(p.revents & POLLIN))
            break;
        ssize_t n = read(fd, buf + got, (size_t)(cap - got));
        if (n <= 0)
            break;
        got += (int)n;
        wait_ms = 150;
    }
    return got;
}

/* Prints what the master side receives now: `label: "<escaped bytes>"`. */
static void show_output(const char *label, int master) __attribute__((unused));
static void show_output(const char *label, int master)
{
    char buf[1024];
    int n = drain(master, buf, sizeof buf, 500);
    out("%s: \"%s\"", label, escaped(buf, n));
}

/* Writes a whole string (to the master: input for the slave). */
static void type(int fd, const char *text) __attribute__((unused));
static void type(int fd, const char *text)
{
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            out("write: %s", errname(errno));
            return;
        }
        text += n;
        len -= (size_t)n;
    }
}

/* One read(2) on `fd`, shown as `label: N "<bytes>"` or `label: -1 ENAME`. */
static void show_read(const char *label, int fd, size_t want) __attribute__((unused));
static void show_read(const char *label, int fd, size_t want)
{
    char buf[1024];
    if (want > sizeof buf)
        want = sizeof buf;
    ssize_t n = read(fd, buf, want);
    if (n < 0)
        out("%s: -1 %s", label, errname(errno));
    else
        out("%s: %zd \"%s\"", label, n, escaped(buf, (int)n));
}

/* Waits until `fd` polls readable (up to `ms`); returns whether it did. */
static int wait_readable(int fd, int ms) __attribute__((unused));
static int wait_readable(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void sleep_ms(int ms) __attribute__((unused));
static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Sets the local, input and output flags of `fd` (the rest unchanged). */
static void set_modes(int fd, tcflag_t iflag, tcflag_t oflag, tcflag_t lflag) __attribute__((unused));
static void set_modes(int fd, tcflag_t iflag, tcflag_t oflag, tcflag_t lflag)
{
    struct termios t;
    tcgetattr(fd, &t);
    t.c_iflag = iflag;
    t.c_oflag = oflag;
    t.c_lflag = lflag;
    if (tcsetattr(fd, TCSANOW, &t) != 0)
        out("tcsetattr: %s", errname(errno));
}

/* The status of a waited-for child, as `exit N`, `signal NAME` or
 * `stopped NAME`. */
static const char *wait_desc(int status) __attribute__((unused));
static const char *wait_desc(int status)
{
    static char text[64];
    if (WIFEXITED(status))
        snprintf(text, sizeof text, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(text, sizeof text, "signal %s", signame(WTERMSIG(status)));
    else if (WIFSTOPPED(status))
        snprintf(text, sizeof text, "stopped %s", signame(WSTOPSIG(status)));
    else
        snprintf(text, sizeof text, "status %#x", status);
    return text;
}

#endif
