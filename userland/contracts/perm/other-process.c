/* Acting on another process as uid 1000: Linux's checks for kill (ids or
 * CAP_KILL; SIGCONT within the session), prlimit (all ids equal or
 * CAP_SYS_RESOURCE, reading included), setpriority (owner or CAP_SYS_NICE;
 * a lower nice value needs RLIMIT_NICE room or CAP_SYS_NICE),
 * sched_setaffinity, sched_setscheduler and sched_setparam (owner or
 * CAP_SYS_NICE), get_robust_list (ptrace read access). On a root process,
 * on a process of the same user, and on itself. */
#include "perm.h"
#include <sched.h>
#include <sys/resource.h>

static void on(const char *who, pid_t pid)
{
    out("  %s:", who);
    rcheck("    kill(0)", rawsys(SYS_kill, pid, 0, 0, 0, 0, 0));
    rcheck("    kill(SIGCONT)", rawsys(SYS_kill, pid, SIGCONT, 0, 0, 0, 0));
    rcheck("    kill(SIGWINCH)", rawsys(SYS_kill, pid, SIGWINCH, 0, 0, 0, 0));
    uint64_t lim[2] = { 0, 0 };
    long r = rawsys(SYS_prlimit64, pid, RLIMIT_NOFILE, 0, (long)lim, 0, 0);
    rcheck("    prlimit(read)", r);
    uint64_t same[2] = { 1024, 4096 };
    if (r == 0)
        memcpy(same, lim, sizeof same);
    rcheck("    prlimit(write the same)", rawsys(SYS_prlimit64, pid, RLIMIT_NOFILE, (long)same, 0, 0, 0));
    r = rawsys(SYS_getpriority, PRIO_PROCESS, pid, 0, 0, 0, 0);
    out("    getpriority: %ld", r);
    rcheck("    setpriority(0)", rawsys(SYS_setpriority, PRIO_PROCESS, pid, 0, 0, 0, 0));
    rcheck("    setpriority(3)", rawsys(SYS_setpriority, PRIO_PROCESS, pid, 3, 0, 0, 0));
    rcheck("    setpriority(0) again", rawsys(SYS_setpriority, PRIO_PROCESS, pid, 0, 0, 0, 0));
    uint64_t mask = 1;
    rcheck("    sched_getaffinity", rawsys(SYS_sched_getaffinity, pid, sizeof mask, (long)&mask, 0, 0, 0));
    mask = 1;
    rcheck("    sched_setaffinity", rawsys(SYS_sched_setaffinity, pid, sizeof mask, (long)&mask, 0, 0, 0));
    mask = 0;
    rcheck("    sched_setaffinity(empty)", rawsys(SYS_sched_setaffinity, pid, sizeof mask, (long)&mask, 0, 0, 0));
    int prio = 0;
    rcheck("    sched_setscheduler(SCHED_BATCH)", rawsys(SYS_sched_setscheduler, pid, SCHED_BATCH, (long)&prio, 0, 0, 0));
    rcheck("    sched_setscheduler(SCHED_OTHER)", rawsys(SYS_sched_setscheduler, pid, SCHED_OTHER, (long)&prio, 0, 0, 0));
    rcheck("    sched_setparam(0)", rawsys(SYS_sched_setparam, pid, (long)&prio, 0, 0, 0, 0));
    prio = 1;
    rcheck("    sched_setscheduler(SCHED_FIFO 1)", rawsys(SYS_sched_setscheduler, pid, SCHED_FIFO, (long)&prio, 0, 0, 0));
    prio = 0;
    rcheck("    sched_setscheduler(SCHED_OTHER) back", rawsys(SYS_sched_setscheduler, pid, SCHED_OTHER, (long)&prio, 0, 0, 0));
    long head = 0, len = 0;
    rcheck("    get_robust_list", rawsys(SYS_get_robust_list, pid, (long)&head, (long)&len, 0, 0, 0));
}

static void actor(long root_pid)
{
    on("root process", (pid_t)root_pid);
    pid_t mine = sleeper(0); /* a child with this user's ids */
    on("same user", mine);
    end_sleeper(mine);
    on("itself", getpid());
    rcheck("  setpriority(self, -1)", rawsys(SYS_setpriority, PRIO_PROCESS, 0, -1, 0, 0, 0));
    uint64_t lim[2];
    rawsys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)lim, 0, 0);
    lim[1] += 1;
    rcheck("  prlimit(self, raise the hard limit)", rawsys(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)lim, 0, 0, 0));
}

int main(void)
{
    pid_t root = sleeper(0);
    static const struct { const char *name; int cap; } modes[] = {
        { "uid 1000", NO_CAP },
        { "uid 1000 with CAP_KILL", CAP_KILL_ },
        { "uid 1000 with CAP_SYS_RESOURCE", CAP_SYS_RESOURCE_ },
        { "uid 1000 with CAP_SYS_NICE", CAP_SYS_NICE_ },
        { "uid 1000 with CAP_SYS_PTRACE", CAP_SYS_PTRACE_ },
    };
    for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        out("%s", modes[i].name);
        as_user(modes[i].cap, actor, root);
    }
    /* A process in another session: SIGCONT needs the ids too. */
    int ready[2];
    pipe(ready);
    pid_t other = fork();
    if (other == 0) {
        setsid();
        write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    char c;
    read(ready[0], &c, 1);
    out("uid 1000, root process in another session");
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        rcheck("  kill(SIGCONT)", rawsys(SYS_kill, other, SIGCONT, 0, 0, 0, 0));
        rcheck("  kill(SIGCONT) same session", rawsys(SYS_kill, root, SIGCONT, 0, 0, 0, 0));
        _exit(0);
    }
    reap("  child", pid);
    end_sleeper(other);
    end_sleeper(root);
    return 0;
}
