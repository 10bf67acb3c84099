/* Output flow control: with IXON, ^S stops the slave's output (a
 * non-blocking write fails with EAGAIN, a blocking one waits, poll has no
 * POLLOUT, echo waits too) and ^Q restarts it; ^S and ^Q are not input.
 * IXANY restarts on any key; tcflow() stops and starts output and sends
 * the stop and start characters; without IXON ^S is data. */
#include "pty.h"

static int m, s;

static void show_pollout(const char *label)
{
    struct pollfd p = { .fd = s, .events = POLLOUT };
    poll(&p, 1, 0);
    out("%s: POLLOUT %d", label, !!(p.revents & POLLOUT));
}

int main(void)
{
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    show_pollout("running");
    type(m, "\x13");
    sleep_ms(300);
    show_pollout("after ^S");
    fcntl(s, F_SETFL, O_RDWR | O_NONBLOCK);
    show("nonblocking write while stopped", write(s, "x", 1));
    fcntl(s, F_SETFL, O_RDWR);
    type(m, "typed\n");
    show_output("echo while stopped", m);
    pid_t writer = fork();
    if (writer == 0) {
        show("blocked write", write(s, "out\n", 4));
        _exit(0);
    }
    /* Wait until the writer sleeps in its write (on a loaded host 300 ms
     * may not be enough for it to get there). */
    for (int i = 0; i < 500; i++) {
        char path[64], buf[256] = { 0 };
        snprintf(path, sizeof path, "/proc/%d/stat", writer);
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            read(fd, buf, sizeof buf - 1);
            close(fd);
        }
        char *paren = strrchr(buf, ')');
        if (paren && paren[1] == ' ' && paren[2] == 'S')
            break;
        sleep_ms(10);
    }
    sleep_ms(100);
    int status = 0;
    out("writer still waiting: %s", waitpid(writer, &status, WNOHANG) == 0 ? "yes" : "no");
    type(m, "\x11");
    waitpid(writer, &status, 0);
    out("writer: %s", wait_desc(status));
    /* The held echo and the writer's line both come out; in which order
     * depends on when Linux's deferred echo work runs (a loaded host
     * reverses it), so either order is accepted. */
    {
        char buf[1024];
        int n = drain(m, buf, sizeof buf - 1, 500);
        buf[n < 0 ? 0 : n] = 0;
        const char *a = "out\r\n", *b = "typed\r\n";
        int whole = n == 12 && ((strncmp(buf, a, 5) == 0 && strcmp(buf + 5, b) == 0) || (strncmp(buf, b, 7) == 0 && strcmp(buf + 7, a) == 0));
        out("after ^Q: %s", whole ? "\"out\\r\\n\" and \"typed\\r\\n\", in some order" : escaped(buf, n));
    }
    show_read("slave input (no ^S or ^Q in it)", s, 100);

    /* tcflow on the slave. */
    check("tcflow TCOOFF", tcflow(s, TCOOFF));
    show_pollout("after TCOOFF");
    check("tcflow TCOON", tcflow(s, TCOON));
    show_pollout("after TCOON");
    check("tcflow TCIOFF", tcflow(s, TCIOFF));
    check("tcflow TCION", tcflow(s, TCION));
    show_output("stop and start characters sent", m);
    show("tcflow bad action", tcflow(s, 42));

    /* IXANY: any key restarts output; that key is input. */
    struct termios t;
    tcgetattr(s, &t);
    t.c_iflag |= IXANY;
    tcsetattr(s, TCSANOW, &t);
    type(m, "\x13");
    sleep_ms(200);
    show_pollout("stopped again");
    type(m, "k\n");
    sleep_ms(200);
    show_pollout("after a key with IXANY");
    show_output("echo", m);
    show_read("input", s, 100);

    /* Turning IXON off restarts stopped output; ^S is then data. */
    type(m, "\x13");
    sleep_ms(200);
    t.c_iflag &= ~(IXON | IXANY);
    tcsetattr(s, TCSANOW, &t);
    show_pollout("after clearing IXON");
    type(m, "\x13\x11\n");
    show_output("echo", m);
    show_read("input", s, 100);
    close(s);
    close(m);
    return 0;
}
