/* prctl: the thread name (PR_SET_NAME/PR_GET_NAME, 15 bytes + NUL, exec
 * sets it from the file name), PR_GET_DUMPABLE, the parent-death signal,
 * no_new_privs (set once, inherited), unknown options EINVAL. */
#include "common.h"
#include <sys/prctl.h>

int main(void)
{
    char name[32] = {0};
    check("PR_GET_NAME", prctl(PR_GET_NAME, name));
    out("name after exec: %s", name);
    check("PR_SET_NAME long", prctl(PR_SET_NAME, "a-very-long-thread-name"));
    memset(name, 0, sizeof name);
    prctl(PR_GET_NAME, name);
    out("name (truncated to 15): %s", name);
    show("PR_GET_DUMPABLE", prctl(PR_GET_DUMPABLE));
    int sig = -1;
    check("PR_GET_PDEATHSIG", prctl(PR_GET_PDEATHSIG, &sig));
    out("pdeathsig: %d", sig);
    check("PR_SET_PDEATHSIG SIGUSR1", prctl(PR_SET_PDEATHSIG, SIGUSR1));
    prctl(PR_GET_PDEATHSIG, &sig);
    out("pdeathsig: %s", signame(sig));
    check("PR_SET_PDEATHSIG 99", prctl(PR_SET_PDEATHSIG, 99));
    show("PR_GET_NO_NEW_PRIVS", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    check("PR_SET_NO_NEW_PRIVS", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
    show("PR_GET_NO_NEW_PRIVS", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    check("PR_SET_NO_NEW_PRIVS 0 (cannot unset)", prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0));
    pid_t pid = fork();
    if (pid == 0) {
        out("child inherits no_new_privs: %ld", (long)prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
        char n[32] = {0};
        prctl(PR_GET_NAME, n);
        out("child inherits name: %s", n);
        int s = -1;
        prctl(PR_GET_PDEATHSIG, &s);
        out("child pdeathsig (not inherited): %d", s);
        _exit(0);
    }
    reap("child", pid);
    check("unknown option", prctl(0x7fffffff, 0, 0, 0, 0));
    return 0;
}
