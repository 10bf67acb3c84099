/* Readiness of both sides for poll and select, FIONREAD counts, waking a
 * sleeping poller, and tcflush. Canonical input is readable once a line is
 * complete; non-canonical input once VMIN bytes are there when VTIME is 0,
 * else once one is. */
#include "pty.h"

#include <sys/select.h>

static void show_poll(const char *label, int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
    int r = poll(&p, 1, 0);
    out("%s: %d IN %d OUT %d HUP %d", label, r, !!(p.revents & POLLIN), !!(p.revents & POLLOUT),
        !!(p.revents & POLLHUP));
}

static void show_fionread(const char *label, int fd)
{
    int n = -1;
    show(label, ioctl(fd, FIONREAD, &n) == 0 ? n : -1);
}

int main(void)
{
    int m, s;
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    set_modes(s, ICRNL, OPOST | ONLCR, ISIG | ICANON | IEXTEN);
    show_poll("slave, fresh", s);
    show_poll("master, fresh", m);
    type(m, "ab");
    sleep_ms(200);
    show_poll("slave, partial line", s);
    show_fionread("slave FIONREAD, partial line", s);
    type(m, "\n");
    wait_readable(s, 1000);
    show_poll("slave, line complete", s);
    show_fionread("slave FIONREAD", s);
    show_read("read", s, 100);
    show_poll("slave, after read", s);

    write(s, "hi\n", 3);
    wait_readable(m, 1000);
    /* Linux moves pty output to the other side in steps (a worker): the
     * master can be readable before all of "hi\r\n" is there. */
    sleep_ms(100);
    show_poll("master, slave wrote", m);
    show_fionread("master FIONREAD", m);
    show_read("master read", m, 100);
    show_poll("master, after read", m);

    /* select() agrees. */
    fd_set r;
    FD_ZERO(&r);
    FD_SET(s, &r);
    struct timeval tv = { 0, 100000 };
    show("select, nothing to read", select(s + 1, &r, NULL, NULL, &tv));
    pid_t writer = fork();
    if (writer == 0) {
        sleep_ms(300);
        type(m, "later\n");
        _exit(0);
    }
    FD_ZERO(&r);
    FD_SET(s, &r);
    tv.tv_sec = 5;
    tv.tv_usec = 0;
    show("select, woken by input", select(s + 1, &r, NULL, NULL, &tv));
    out("slave in the set: %d", FD_ISSET(s, &r));
    waitpid(writer, NULL, 0);
    show_read("read", s, 100);

    /* Non-canonical thresholds. */
    struct termios t;
    tcgetattr(s, &t);
    t.c_lflag &= ~ICANON;
    t.c_cc[VMIN] = 3;
    t.c_cc[VTIME] = 0;
    tcsetattr(s, TCSANOW, &t);
    type(m, "12");
    sleep_ms(200);
    show_poll("raw MIN=3, 2 bytes", s);
    show_fionread("raw FIONREAD", s);
    type(m, "3");
    wait_readable(s, 1000);
    show_poll("raw MIN=3, 3 bytes", s);
    t.c_cc[VTIME] = 1;
    tcsetattr(s, TCSANOW, &t);
    show_read("read", s, 2);
    show_poll("raw MIN=3 TIME=1, 1 byte", s);

    /* tcflush. */
    type(m, "xyz");
    sleep_ms(200);
    check("tcflush TCIFLUSH", tcflush(s, TCIFLUSH));
    show_fionread("after TCIFLUSH", s);
    write(s, "out", 3);
    wait_readable(m, 1000);
    check("tcflush TCIFLUSH on master", tcflush(m, TCIFLUSH));
    show_fionread("master after TCIFLUSH", m);
    check("tcflush TCOFLUSH", tcflush(s, TCOFLUSH));
    check("tcflush TCIOFLUSH", tcflush(s, TCIOFLUSH));
    show("tcflush bad queue", tcflush(s, 7));
    check("tcdrain", tcdrain(s));
    check("tcsendbreak", tcsendbreak(s, 0));
    close(s);
    close(m);
    return 0;
}
