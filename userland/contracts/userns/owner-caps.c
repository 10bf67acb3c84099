/* Capabilities over a process in a child user namespace: uid 1000 makes a
 * namespace whose ids 0..999 are 100000..100999 and the process in it
 * becomes root there, so their ids no longer match. As the namespace's
 * owner uid 1000 holds every capability in it: kill, setpriority and
 * prlimit on that process succeed; reading its memory does not while it
 * is not dumpable (its memory belongs to the initial namespace, where it
 * last ran exec) and does once it makes itself dumpable, and so does
 * PTRACE_ATTACH, and sched_setaffinity (CAP_SYS_NICE over the target);
 * ioprio_set is not (Linux asks for CAP_SYS_NICE in the initial
 * namespace). The other way round, and for uid 2000 that owns nothing,
 * each is EPERM. The signal that crossed carries si_uid 65534. */
#include "inner.h"
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>

static volatile int secret = 1234;

static long peek(pid_t pid, int *value)
{
    struct iovec local = {value, sizeof *value};
    struct iovec remote = {(void *)&secret, sizeof secret};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* kill, setpriority, prlimit, sched_setaffinity, ioprio_set and a
 * memory read aimed at `pid`. */
static void act_on(const char *who, pid_t pid)
{
    char label[128];
    snprintf(label, sizeof label, "%s: kill 0", who);
    check(label, kill(pid, 0));
    snprintf(label, sizeof label, "%s: setpriority 5", who);
    check(label, setpriority(PRIO_PROCESS, pid, 5));
    struct rlimit old;
    snprintf(label, sizeof label, "%s: prlimit read", who);
    check(label, prlimit(pid, RLIMIT_NOFILE, NULL, &old));
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    snprintf(label, sizeof label, "%s: sched_setaffinity", who);
    check(label, sched_setaffinity(pid, sizeof cpus, &cpus));
    snprintf(label, sizeof label, "%s: ioprio_set", who);
    check(label, syscall(SYS_ioprio_set, 1, pid, (2 << 13) | 4));
    snprintf(label, sizeof label, "%s: process_vm_readv", who);
    int value = 0;
    check(label, peek(pid, &value));
}

int main(void)
{
    struct mapper m;
    mapper_init(&m);
    int c_ready[2], c_go[2], p_done[2], p_go[2];
    pipe(c_ready);
    pipe(c_go);
    pipe(p_done);
    pipe(p_go);
    pid_t p = fork();
    if (p == 0) {
        if (setgroups(0, NULL) < 0 || setresgid(1000, 1000, 1000) < 0 || setresuid(1000, 1000, 1000) < 0)
            _exit(9);
        pid_t c = fork();
        if (c == 0) {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGUSR1);
            sigprocmask(SIG_BLOCK, &set, NULL);
            if (inner_enter(&m) < 0)
                _exit(1);
            out("inner: uid %d, dumpable %d", (int)getuid(), prctl(PR_GET_DUMPABLE));
            post(c_ready[1]);
            await(c_go[0]);
            prctl(PR_SET_DUMPABLE, 1);
            post(c_ready[1]);
            await(c_go[0]);
            siginfo_t si;
            struct timespec none = {0, 0};
            if (sigtimedwait(&set, &si, &none) < 0)
                out("inner: SIGUSR1 %s", errname(errno));
            else
                out("inner: SIGUSR1 from its owner, si_uid %d", (int)si.si_uid);
            out("inner: its priority %d", getpriority(PRIO_PROCESS, 0));
            act_on("inner on its owner", getppid());
            _exit(0);
        }
        await(c_ready[0]);
        act_on("owner, not dumpable", c);
        check("owner: kill SIGUSR1", kill(c, SIGUSR1));
        post(c_go[1]);
        await(c_ready[0]);
        int value = 0;
        check("owner, dumpable: process_vm_readv", peek(c, &value));
        out("owner: read %d", value);
        if (check("owner: PTRACE_ATTACH", ptrace(PTRACE_ATTACH, c, 0, 0)) == 0) {
            int st;
            waitpid(c, &st, __WALL);
            out("owner: tracee %s", wstatus(st));
            check("owner: PTRACE_DETACH", ptrace(PTRACE_DETACH, c, 0, 0));
        }
        post(p_done[1]);
        await(p_go[0]);
        post(c_go[1]);
        reap("inner", c);
        _exit(0);
    }
    pid_t c = mapper_serve(&m);
    await(p_done[0]);
    pid_t q = fork();
    if (q == 0) {
        if (setgroups(0, NULL) < 0 || setresgid(2000, 2000, 2000) < 0 || setresuid(2000, 2000, 2000) < 0)
            _exit(9);
        act_on("uid 2000", c);
        check("uid 2000: PTRACE_ATTACH", ptrace(PTRACE_ATTACH, c, 0, 0));
        _exit(0);
    }
    reap("uid 2000", q);
    post(p_go[1]);
    reap("owner", p);
    return 0;
}
