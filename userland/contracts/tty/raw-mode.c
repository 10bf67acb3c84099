/* Non-canonical reads: VMIN and VTIME. MIN=0 TIME=0 returns what is there
 * (0 when nothing); MIN>0 TIME=0 waits for MIN bytes but returns all that
 * is there; MIN=0 TIME>0 waits at most TIME tenths for the first byte;
 * MIN>0 TIME>0 restarts the timer after each byte. Signal characters and
 * no line editing in raw mode; switching modes keeps buffered input. */
#include "pty.h"

#include <sys/time.h>

static int m, s;

static void set_min_time(int min, int time)
{
    struct termios t;
    tcgetattr(s, &t);
    t.c_lflag &= ~(ICANON | ECHO);
    t.c_cc[VMIN] = min;
    t.c_cc[VTIME] = time;
    tcsetattr(s, TCSANOW, &t);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A child that writes `text` to the master after `delay_ms`. */
static pid_t write_later(const char *text, int delay_ms)
{
    pid_t pid = fork();
    if (pid == 0) {
        sleep_ms(delay_ms);
        type(m, text);
        _exit(0);
    }
    return pid;
}

int main(void)
{
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    set_min_time(0, 0);
    long t0 = now_ms();
    show_read("MIN=0 TIME=0, nothing there", s, 10);
    out("returned at once: %s", now_ms() - t0 < 1000 ? "yes" : "no");
    type(m, "abc\x7f");
    wait_readable(s, 1000);
    sleep_ms(100);
    show_read("MIN=0 TIME=0, data there", s, 10);

    set_min_time(3, 0);
    pid_t w = write_later("bc", 300);
    type(m, "a");
    show_read("MIN=3 TIME=0, 1 then 2 bytes", s, 10);
    waitpid(w, NULL, 0);
    type(m, "12345");
    sleep_ms(300);
    show_read("MIN=3 TIME=0, 5 there", s, 10);
    type(m, "xyz");
    sleep_ms(300);
    show_read("MIN=3 TIME=0, buffer of 2", s, 2);
    show_read("MIN=3 TIME=0, a buffer of 1", s, 1);

    set_min_time(0, 3);
    t0 = now_ms();
    show_read("MIN=0 TIME=3, nothing comes", s, 10);
    long waited = now_ms() - t0;
    out("waited about 0.3 s: %s", waited >= 250 && waited < 2000 ? "yes" : "no");
    w = write_later("late", 100);
    show_read("MIN=0 TIME=3, data within TIME", s, 10);
    waitpid(w, NULL, 0);

    set_min_time(5, 3);
    type(m, "ab");
    t0 = now_ms();
    show_read("MIN=5 TIME=3, 2 bytes then quiet", s, 10);
    waited = now_ms() - t0;
    out("inter-byte timeout: %s", waited >= 200 && waited < 2000 ? "yes" : "no");

    /* Raw mode: no editing, but signal characters still act (no
     * controlling terminal here, so no signal is sent; the flush shows). */
    set_min_time(1, 0);
    type(m, "x\x15y\x17");
    sleep_ms(300);
    int avail = -1;
    ioctl(s, FIONREAD, &avail);
    out("FIONREAD raw: %d", avail);
    show_read("no editing in raw mode", s, 10);
    type(m, "lost");
    sleep_ms(200);
    type(m, "\x03");
    sleep_ms(300);
    ioctl(s, FIONREAD, &avail);
    out("after ^C (input flushed): %d", avail);

    /* Switching modes keeps input: a partial canonical line becomes raw
     * input; raw input becomes one line. */
    struct termios t;
    tcgetattr(s, &t);
    t.c_lflag |= ICANON;
    tcsetattr(s, TCSANOW, &t);
    type(m, "half");
    sleep_ms(300);
    ioctl(s, FIONREAD, &avail);
    out("canonical partial line: %d", avail);
    set_min_time(1, 0);
    ioctl(s, FIONREAD, &avail);
    out("after switching to raw: %d", avail);
    show_read("read", s, 10);
    type(m, "raw");
    sleep_ms(300);
    tcgetattr(s, &t);
    t.c_lflag |= ICANON;
    tcsetattr(s, TCSANOW, &t);
    ioctl(s, FIONREAD, &avail);
    out("after switching to canonical: %d", avail);
    show_read("read", s, 10);

    /* O_NONBLOCK with nothing there. */
    fcntl(s, F_SETFL, O_NONBLOCK);
    show_read("nonblocking canonical", s, 10);
    set_min_time(1, 0);
    show_read("nonblocking raw", s, 10);
    close(s);
    close(m);
    return 0;
}
