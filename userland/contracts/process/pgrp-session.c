/* Process groups and sessions: the test starts as a session leader (the
 * runner calls setsid), setpgid/getpgid/setsid/getsid rules and errors. */
#include "common.h"

int main(void)
{
    pid_t me = getpid();
    out("getsid(0) is self: %s", yesno(getsid(0) == me));
    out("getpgid(0) is self: %s", yesno(getpgid(0) == me));
    out("getpgrp() is self: %s", yesno(getpgrp() == me));
    show("setsid as group leader", setsid());
    show("setpgid(0, 0) as session leader", setpgid(0, 0));

    int p2c[2], c2p[2];
    pipe(p2c);
    pipe(c2p);
    pid_t child = fork();
    if (child == 0) {
        char c;
        char r[6];
        r[0] = getpgid(0) == me ? 'y' : 'n';
        r[1] = getsid(0) == me ? 'y' : 'n';
        r[2] = setpgid(0, 0) == 0 ? 'y' : 'n';
        r[3] = getpgid(0) == getpid() ? 'y' : 'n';
        /* Back into the parent's group, then a new session. */
        r[4] = setpgid(0, me) == 0 ? 'y' : 'n';
        pid_t s = setsid();
        r[5] = (s == getpid() && getsid(0) == getpid() && getpgid(0) == getpid()) ? 'y' : 'n';
        write(c2p[1], r, 6);
        read(p2c[0], &c, 1);
        _exit(0);
    }
    char r[6] = {0};
    read_full(c2p[0], r, 6);
    out("child starts in parent's group: %s", r[0] == 'y' ? "yes" : "no");
    out("child starts in parent's session: %s", r[1] == 'y' ? "yes" : "no");
    out("child setpgid(0,0): %s", r[2] == 'y' ? "ok" : "failed");
    out("child now leads its group: %s", r[3] == 'y' ? "yes" : "no");
    out("child rejoins parent's group: %s", r[4] == 'y' ? "ok" : "failed");
    out("child setsid makes it session and group leader: %s", r[5] == 'y' ? "yes" : "no");
    /* The child is in another session now. */
    show("setpgid(child in other session)", setpgid(child, me));
    out("getsid(child) is child: %s", yesno(getsid(child) == child));
    write(p2c[1], "x", 1);
    reap("child", child);

    show("setpgid(no such pid)", setpgid(999999, 0));
    show("setpgid(0, -1)", setpgid(0, -1));
    show("getpgid(no such pid)", getpgid(999999));
    show("getsid(no such pid)", getsid(999999));

    /* setpgid on a child after it execs: EACCES. */
    int go[2];
    pipe2(go, O_CLOEXEC);
    pid_t c2 = fork();
    if (c2 == 0) {
        close(go[0]);
        execve(HELPERS "/exit-with", (char *[]){"exit-with", "0", NULL}, (char *[]){NULL});
        _exit(1);
    }
    close(go[1]);
    char c;
    read(go[0], &c, 1); /* EOF once the child has exec'd (CLOEXEC) or exited */
    int e = setpgid(c2, c2);
    /* Whether it still runs or is already a zombie, it has exec'd: EACCES. */
    out("setpgid(child after exec): %s", e < 0 ? errname(errno) : "ok");
    reap("exec child", c2);
    return 0;
}
