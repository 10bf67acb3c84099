/* PID namespaces, the numbers: after unshare(CLONE_NEWPID) the caller
 * keeps its pid and the next child is PID 1 of the new namespace, whose
 * parent is outside it (getppid 0); later children and grandchildren count
 * up from 2; the outside sees other numbers; a second unshare before the
 * namespace is used is EINVAL; a thread cannot be made while children go
 * to another namespace (EINVAL); clone(CLONE_NEWPID) makes a PID 1 too;
 * getpgid/getsid of groups made outside are 0 inside; wait and kill take
 * the namespace's numbers; setsid inside returns the inside number. */
#include "../common.h"
#include <sched.h>

int main(void)
{
    pid_t me = getpid();
    long r = rawsys(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0, 0);
    if (r == 0) {
        out("clone child: getpid %d getppid %d", getpid(), getppid());
        _exit(0);
    }
    if (r > 0)
        reap("clone(CLONE_NEWPID) child", r);
    else
        out("clone(CLONE_NEWPID): %s", errname(errno));
    check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
    out("getpid unchanged: %s", yesno(getpid() == me));
    check("unshare(CLONE_NEWPID) again", unshare(CLONE_NEWPID));
    rcheck("clone(CLONE_THREAD) while children go elsewhere",
           rawsys(SYS_clone, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_FS | CLONE_FILES, 0, 0, 0, 0, 0));
    int p[2], q[2], s2[2], hold[2], done[2];
    if (pipe(p) < 0 || pipe(q) < 0 || pipe(s2) < 0 || pipe(hold) < 0 || pipe(done) < 0)
        return 1;
    char c;
    pid_t first = fork();
    if (first == 0) {
        close(hold[1]);
        close(done[1]);
        out("first child: getpid %d getppid %d", getpid(), getppid());
        out("first child: getpgid(0) %d getsid(0) %d", getpgid(0), getsid(0));
        check("first child: kill(1, 0)", kill(1, 0));
        check("first child: kill(2, 0)", kill(2, 0));
        pid_t g = fork();
        if (g == 0) {
            out("grandchild: getpid %d getppid %d", getpid(), getppid());
            out("grandchild: setsid %d", setsid());
            out("grandchild: getpgid(0) %d getsid(0) %d", getpgid(0), getsid(0));
            _exit(3);
        }
        /* Printed once the grandchild is gone: its lines and these share
         * the output and would race. */
        int st;
        pid_t w = waitpid(-1, &st, 0);
        out("first child: fork returned %d", g);
        out("first child: waitpid(-1) %d %s", w, wstatus(st));
        write(p[1], "x", 1);
        read(q[0], &c, 1);
        check("first child: kill(2, 0) (reaped)", kill(2, 0));
        check("first child: kill(3, 0) (its sibling)", kill(3, 0));
        check("first child: waitpid(3) (not its child)", waitpid(3, &st, WNOHANG));
        write(p[1], "x", 1);
        /* Stay until the second child is reaped: the init's exit kills
         * whatever is left in its namespace, and the second child must end
         * by itself on either kernel. */
        read(done[0], &c, 1);
        _exit(0);
    }
    read(p[0], &c, 1);
    out("parent: child seen as 1: %s", yesno(first == 1));
    pid_t second = fork();
    if (second == 0) {
        out("second child: getpid %d getppid %d", getpid(), getppid());
        write(s2[1], "x", 1);
        close(hold[1]);
        read(hold[0], &c, 1);
        _exit(0);
    }
    read(s2[0], &c, 1);
    out("parent: second child differs from first: %s", yesno(second != first));
    write(q[1], "x", 1);
    read(p[0], &c, 1);
    /* The second child ends by itself and is reaped while the init still
     * runs; then the init ends. */
    close(hold[1]);
    reap("second child", second);
    write(done[1], "x", 1);
    reap("first child", first);

    return 0;
}
