/* exec reports FAN_OPEN | FAN_OPEN_EXEC for the program it opens (a
 * mark asking for FAN_OPEN_EXEC alone hears only that bit); a plain open
 * of the same file is FAN_OPEN alone. */
#include "fan.h"

static void run_helper(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"exit-with", "3", NULL};
        execv(HELPERS "/exit-with", argv);
        _exit(99);
    }
    fan_child = pid;
    reap("helper", pid);
}

int main(void)
{
    fd_names[0] = HELPERS "/exit-with";
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    check("init", fan);
    check("mark helper: FAN_OPEN_EXEC", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_EXEC, AT_FDCWD, HELPERS "/exit-with"));
    run_helper();
    close(open(HELPERS "/exit-with", O_RDONLY));
    fan_dump("exec, then a plain open", fan);
    check("add FAN_OPEN", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, HELPERS "/exit-with"));
    run_helper();
    close(open(HELPERS "/exit-with", O_RDONLY));
    fan_dump("exec, then a plain open", fan);
    return 0;
}
