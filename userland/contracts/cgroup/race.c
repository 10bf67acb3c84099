/* Moves racing forks and thread creation (at -smp 2 on different CPUs):
 * a process forking children and one making threads are moved between
 * two cgroups hundreds of times; once they are gone, both cgroups count
 * no task (pids.current 0, populated 0) and can be removed. */
#include "cg.h"
#include <pthread.h>
#include <sys/mman.h>

#define A CG "/t-race"

static void *nothing(void *arg)
{
    return arg;
}

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    cg_try("root +pids", CG "/cgroup.subtree_control", "+pids");
    cg_try("a +pids", A "/cgroup.subtree_control", "+pids");
    mkdir(A "/x", 0755);
    mkdir(A "/y", 0755);
    /* The two stop when told, after their last child or thread is gone. */
    volatile int *stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t forker = fork();
    if (forker == 0) {
        while (!*stop) {
            pid_t c = fork();
            if (c == 0)
                _exit(0);
            if (c > 0)
                waitpid(c, NULL, 0);
        }
        _exit(0);
    }
    pid_t threader = fork();
    if (threader == 0) {
        while (!*stop) {
            pthread_t t;
            if (pthread_create(&t, NULL, nothing, NULL) == 0)
                pthread_join(t, NULL);
        }
        _exit(0);
    }
    int failed = 0;
    for (int i = 0; i < 400; i++) {
        const char *to = i % 2 ? A "/x" : A "/y";
        failed |= cg_move(to, forker) < 0;
        failed |= cg_move(to, threader) < 0;
    }
    out("every move succeeded: %s", yesno(!failed));
    out("a counts at least the two: %s", yesno(cg_num(A "/pids.current") >= 2));
    *stop = 1;
    reap("forker", forker);
    reap("threader", threader);
    out("a depopulated: %s", yesno(cg_wait_key(A "/cgroup.events", "populated", 0)));
    /* Every task was reaped (a task is charged until then). */
    cg_show("x pids.current", A "/x/pids.current");
    cg_show("y pids.current", A "/y/pids.current");
    cg_show("a pids.current", A "/pids.current");
    check("rmdir x", rmdir(A "/x"));
    check("rmdir y", rmdir(A "/y"));
    cg_try("a -pids", A "/cgroup.subtree_control", "-pids");
    check("rmdir", rmdir(A));
    cg_try("root -pids", CG "/cgroup.subtree_control", "-pids");
    cg_umount();
    return 0;
}
