/* Permission events: the opener (or reader, or exec) waits until the
 * listener writes a struct fanotify_response for the event's descriptor:
 * FAN_ALLOW lets it go on, FAN_DENY fails it with EPERM; the response's
 * errors (EINVAL, ENOENT); closing the group allows what waits; a waiter
 * can be killed. Children report through their exit status (0, or the
 * errno: 1 is EPERM), so that their output does not race the listener's. */
#include "fan.h"

static int fan;

/* Reads one event (blocking), prints it and answers it. */
static void answer(const char *label, unsigned response)
{
    char buf[256] __attribute__((aligned(8)));
    ssize_t n = read(fan, buf, sizeof buf);
    if (n < 0) {
        out("%s: read %s", label, errname(errno));
        return;
    }
    struct fanotify_event_metadata *m = (void *)buf;
    out("%s: %s fd=%s pid=%s (%zd bytes)", label, fan_mask(m->mask), fd_what(m->fd), m->pid == fan_child ? "child" : "other", n);
    struct fanotify_response r = {.fd = m->fd, .response = response};
    ssize_t w = write(fan, &r, sizeof r);
    out("%s: answer %s -> %zd %s", label, response == FAN_ALLOW ? "FAN_ALLOW" : "FAN_DENY", w, w < 0 ? errname(errno) : "");
    w = write(fan, &r, sizeof r);
    out("%s: answer again -> %s", label, w < 0 ? errname(errno) : "ok");
    close(m->fd);
}

static pid_t run(int (*body)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        close(fan); /* the group lives while any copy of its fd does */
        _exit(body());
    }
    fan_child = pid;
    return pid;
}

static int open_a(void)
{
    return open("a", O_RDONLY) >= 0 ? 0 : errno;
}

static int read_b(void)
{
    int fd = open("b", O_RDONLY);
    char c;
    return read(fd, &c, 1) >= 0 ? 0 : errno;
}

/* exit-with 7 when it runs. */
static int exec_helper(void)
{
    char *argv[] = {"exit-with", "7", NULL};
    execv(HELPERS "/exit-with", argv);
    return errno;
}

int main(void)
{
    put_file("a", "a");
    put_file("b", "b");
    fd_names[0] = "a";
    fd_names[1] = "b";
    fd_names[2] = HELPERS "/exit-with";
    fan = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
    check("init", fan);
    check("mark a: FAN_OPEN_PERM", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, "a"));

    pid_t pid = run(open_a);
    answer("open a", FAN_DENY);
    reap("denied opener", pid);
    pid = run(open_a);
    answer("open a", FAN_ALLOW);
    reap("allowed opener", pid);

    /* Bad responses. */
    struct fanotify_response r = {.fd = 3, .response = 3};
    ssize_t w = write(fan, &r, sizeof r);
    out("response 3: %s", w < 0 ? errname(errno) : "ok");
    r.response = FAN_ALLOW;
    r.fd = -1;
    w = write(fan, &r, sizeof r);
    out("fd -1: %s", w < 0 ? errname(errno) : "ok");
    r.fd = 50;
    w = write(fan, &r, sizeof r);
    out("unknown fd: %s", w < 0 ? errname(errno) : "ok");
    r.response = FAN_ALLOW | FAN_AUDIT;
    w = write(fan, &r, sizeof r);
    out("FAN_AUDIT without FAN_ENABLE_AUDIT: %s", w < 0 ? errname(errno) : "ok");
    w = write(fan, &r, 4);
    out("short write: %s", w < 0 ? errname(errno) : "ok");

    /* FAN_ACCESS_PERM before a read. */
    check("mark b: FAN_ACCESS_PERM", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS_PERM, AT_FDCWD, "b"));
    pid = run(read_b);
    answer("read b", FAN_DENY);
    reap("denied reader", pid);

    /* FAN_OPEN_EXEC_PERM before exec. */
    check("mark helper: FAN_OPEN_EXEC_PERM", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM, AT_FDCWD, HELPERS "/exit-with"));
    pid = run(exec_helper);
    answer("exec", FAN_DENY);
    reap("denied exec", pid);
    pid = run(exec_helper);
    answer("exec", FAN_ALLOW);
    reap("allowed exec", pid);
    check("unmark helper", fanotify_mark(fan, FAN_MARK_REMOVE, FAN_OPEN_EXEC_PERM, AT_FDCWD, HELPERS "/exit-with"));

    /* A waiter is killable. */
    pid = run(open_a);
    msleep(100);
    kill(pid, SIGKILL);
    reap("killed opener", pid);
    char buf[256];
    int flags = fcntl(fan, F_GETFL);
    fcntl(fan, F_SETFL, flags | O_NONBLOCK);
    ssize_t n;
    int left = 0;
    while ((n = read(fan, buf, sizeof buf)) > 0)
        left++;
    out("events left after the kill: %s", left ? "some" : "none");
    fcntl(fan, F_SETFL, flags);

    /* Closing the group allows the waiting opener, read or not. */
    pid = run(open_a);
    msleep(100);
    close(fan);
    reap("opener when the group closed", pid);
    return 0;
}
