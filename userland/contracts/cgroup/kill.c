/* cgroup.kill: SIGKILL to every process of the subtree (children of
 * nested cgroups too), while they fork; the cgroup is then empty and
 * can be removed. Only "1" may be written. */
#include "cg.h"

#define A CG "/t-kill"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    mkdir(A "/sub", 0755);
    cg_try("write 2", A "/cgroup.kill", "2");
    cg_try("write junk", A "/cgroup.kill", "x");
    cg_try("kill an empty cgroup", A "/cgroup.kill", "1");
    pid_t sleeper = cg_sleeper();
    cg_move(A "/sub", sleeper);
    /* A process that forks children (who exit at once) as fast as it can. */
    pid_t forker = fork();
    if (forker == 0) {
        cg_move(A, 0);
        for (;;) {
            pid_t c = fork();
            if (c == 0)
                _exit(0);
            if (c > 0)
                waitpid(c, NULL, 0);
        }
    }
    /* Wait until it runs in A. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)forker);
    for (int i = 0; i < 2000; i++) {
        char buf[128];
        if (cg_read(path, buf, sizeof buf) > 0 && strstr(buf, "t-kill"))
            break;
        msleep(5);
    }
    msleep(50);
    cg_try("kill", A "/cgroup.kill", "1");
    reap("forker", forker);
    reap("sleeper", sleeper);
    out("depopulated: %s", yesno(cg_wait_key(A "/cgroup.events", "populated", 0)));
    check("rmdir sub", rmdir(A "/sub"));
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
