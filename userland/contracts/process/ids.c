/* uid/gid calls: root starts with all ids 0; setres*, setgroups, and a
 * non-root process cannot regain root. */
#include "common.h"
#include <grp.h>

int main(void)
{
    uid_t r, e, s;
    gid_t gr, ge, gs;
    out("uid=%d euid=%d gid=%d egid=%d", getuid(), geteuid(), getgid(), getegid());
    getresuid(&r, &e, &s);
    getresgid(&gr, &ge, &gs);
    out("getresuid: %d %d %d getresgid: %d %d %d", r, e, s, gr, ge, gs);

    gid_t groups[] = {5, 7, 9};
    check("setgroups(3)", setgroups(3, groups));
    gid_t got[16];
    int n = getgroups(16, got);
    out("getgroups: %d [%d %d %d]", n, got[0], got[1], got[2]);
    show("getgroups(0, NULL) count", getgroups(0, NULL));
    show("getgroups too small", getgroups(1, got));

    pid_t pid = fork();
    if (pid == 0) {
        check("setresgid(100,200,300)", setresgid(100, 200, 300));
        getresgid(&gr, &ge, &gs);
        out("child getresgid: %d %d %d", gr, ge, gs);
        check("setresuid(1000,1001,1002)", setresuid(1000, 1001, 1002));
        getresuid(&r, &e, &s);
        out("child getresuid: %d %d %d", r, e, s);
        check("seteuid(1002) (saved id)", seteuid(1002));
        out("child euid=%d", geteuid());
        check("seteuid(0)", seteuid(0));
        check("setuid(0)", setuid(0));
        check("setgroups as non-root", setgroups(0, NULL));
        check("setresuid(-1,1000,-1)", setresuid(-1, 1000, -1));
        getresuid(&r, &e, &s);
        out("child getresuid: %d %d %d", r, e, s);
        _exit(0);
    }
    reap("child", pid);
    pid = fork();
    if (pid == 0) {
        check("setgid(50)", setgid(50));
        check("setuid(60)", setuid(60));
        getresuid(&r, &e, &s);
        getresgid(&gr, &ge, &gs);
        out("after setuid as root: uid %d %d %d gid %d %d %d", r, e, s, gr, ge, gs);
        check("setuid(61)", setuid(61));
        _exit(0);
    }
    reap("child", pid);
    out("parent unchanged: uid=%d euid=%d", getuid(), geteuid());
    return 0;
}
