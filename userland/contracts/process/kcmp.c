/* kcmp(2): whether two tasks share a resource. Equal gives 0, different
 * gives 1 or 2 (an order of scrambled kernel addresses: only "non-zero"
 * is portable). Errors: ESRCH for an unknown task, EBADF for a closed fd,
 * EINVAL for an unknown type or a non-epoll fd in KCMP_EPOLL_TFD, ENOENT
 * for a target not in the epoll set, EPERM without ptrace read access
 * (another user's process). */
#include "common.h"
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <pthread.h>

#ifndef SYS_kcmp
#define SYS_kcmp 312
#endif
enum { KCMP_FILE, KCMP_VM, KCMP_FILES, KCMP_FS, KCMP_SIGHAND, KCMP_IO, KCMP_SYSVSEM, KCMP_EPOLL_TFD, KCMP_TYPES };
struct slot { unsigned efd, tfd, toff; };

static long kcmp(pid_t a, pid_t b, int type, unsigned long i1, unsigned long i2)
{
    long r = syscall(SYS_kcmp, a, b, type, i1, i2);
    return r < 0 ? -errno : r;
}

/* "0", "differ" or the error name. */
static void cmp(const char *label, long r)
{
    if (r < 0)
        out("%s: -1 %s", label, errname(-r));
    else if (r == 0)
        out("%s: same", label);
    else
        out("%s: %s", label, r == 1 || r == 2 ? "differ" : "bad value");
}

static int go[2], back[2];
static char stack[65536];

/* A CLONE_VM | CLONE_FILES child that waits for its parent. */
static int sharer(void *arg)
{
    (void)arg;
    char c;
    if (read(go[0], &c, 1) != 1)
        return 1;
    return 0;
}

static void *thread_main(void *arg)
{
    pid_t *tid = arg;
    *tid = syscall(SYS_gettid);
    char c;
    if (write(back[1], "t", 1) != 1)
        return NULL;
    if (read(go[0], &c, 1) != 1)
        return NULL;
    return NULL;
}

int main(void)
{
    pid_t me = getpid();
    const char *names[] = { "file", "vm", "files", "fs", "sighand", "io", "sysvsem" };
    for (int t = KCMP_VM; t <= KCMP_SYSVSEM; t++) {
        char label[64];
        snprintf(label, sizeof label, "self %s", names[t]);
        cmp(label, kcmp(me, me, t, 0, 0));
    }

    /* Files: dup shares the description, a second open does not. */
    int a = open("/proc/self/stat", O_RDONLY);
    int b = dup(a);
    int c = open("/proc/self/stat", O_RDONLY);
    cmp("file dup", kcmp(me, me, KCMP_FILE, a, b));
    cmp("file reopen", kcmp(me, me, KCMP_FILE, a, c));
    long r1 = kcmp(me, me, KCMP_FILE, a, c), r2 = kcmp(me, me, KCMP_FILE, c, a);
    out("file order antisymmetric: %s", yesno(r1 + r2 == 3));
    cmp("file closed fd", kcmp(me, me, KCMP_FILE, a, 999));
    cmp("file closed fd first", kcmp(me, me, KCMP_FILE, 999, a));
    cmp("file fd 2^32+a", kcmp(me, me, KCMP_FILE, (1UL << 32) + a, b));

    /* Errors before the type. */
    cmp("unknown type", kcmp(me, me, KCMP_TYPES, 0, 0));
    cmp("negative type", kcmp(me, me, -1, 0, 0));
    cmp("no such pid", kcmp(me, 999999, KCMP_VM, 0, 0));
    cmp("no such pid first", kcmp(999999, me, KCMP_VM, 0, 0));
    cmp("pid 0", kcmp(0, me, KCMP_VM, 0, 0));
    cmp("no such pid, bad type", kcmp(me, 999999, 100, 0, 0));

    /* A forked child shares nothing but the open files' descriptions. */
    if (pipe(go) || pipe(back))
        return 1;
    pid_t child = fork();
    if (child == 0) {
        char ch;
        if (read(go[0], &ch, 1) != 1)
            _exit(1);
        _exit(0);
    }
    cmp("fork vm", kcmp(me, child, KCMP_VM, 0, 0));
    cmp("fork files", kcmp(me, child, KCMP_FILES, 0, 0));
    cmp("fork fs", kcmp(me, child, KCMP_FS, 0, 0));
    cmp("fork sighand", kcmp(me, child, KCMP_SIGHAND, 0, 0));
    cmp("fork sysvsem (no undo lists)", kcmp(me, child, KCMP_SYSVSEM, 0, 0));
    cmp("fork file inherited", kcmp(me, child, KCMP_FILE, a, a));
    cmp("fork file other", kcmp(me, child, KCMP_FILE, a, c));
    long x = kcmp(me, child, KCMP_VM, 0, 0), y = kcmp(child, me, KCMP_VM, 0, 0);
    out("vm order antisymmetric: %s", yesno(x + y == 3));

    /* A SEM_UNDO list of our own: now the child's (none) differs. */
    int sem = semget(IPC_PRIVATE, 1, 0600);
    struct sembuf op = { 0, 1, SEM_UNDO };
    check("semop SEM_UNDO", semop(sem, &op, 1));
    cmp("sysvsem after undo", kcmp(me, child, KCMP_SYSVSEM, 0, 0));
    cmp("self sysvsem after undo", kcmp(me, me, KCMP_SYSVSEM, 0, 0));
    semctl(sem, 0, IPC_RMID);
    if (write(go[1], "x", 1) != 1)
        return 1;
    reap("child", child);

    /* CLONE_VM | CLONE_FILES without a thread: those two are shared. */
    pid_t sh = clone(sharer, stack + sizeof stack, CLONE_VM | CLONE_FILES | SIGCHLD, NULL);
    if (sh < 0)
        return 1;
    cmp("clone vm", kcmp(me, sh, KCMP_VM, 0, 0));
    cmp("clone files", kcmp(me, sh, KCMP_FILES, 0, 0));
    cmp("clone fs", kcmp(me, sh, KCMP_FS, 0, 0));
    cmp("clone sighand", kcmp(me, sh, KCMP_SIGHAND, 0, 0));
    if (write(go[1], "x", 1) != 1)
        return 1;
    reap("clone child", sh);

    /* A thread shares everything; by its own id too. */
    pid_t tid = 0;
    pthread_t th;
    if (pthread_create(&th, NULL, thread_main, &tid))
        return 1;
    char ch;
    if (read(back[0], &ch, 1) != 1)
        return 1;
    for (int t = KCMP_VM; t <= KCMP_SIGHAND; t++) {
        char label[64];
        snprintf(label, sizeof label, "thread %s", names[t]);
        cmp(label, kcmp(me, tid, t, 0, 0));
    }
    cmp("thread file", kcmp(tid, me, KCMP_FILE, a, a));
    if (write(go[1], "x", 1) != 1)
        return 1;
    pthread_join(th, NULL);

    /* KCMP_EPOLL_TFD: fd a against the entries of an epoll set. */
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN };
    epoll_ctl(ep, EPOLL_CTL_ADD, go[0], &ev);
    struct slot s = { ep, go[0], 0 };
    cmp("epoll same", kcmp(me, me, KCMP_EPOLL_TFD, go[0], (unsigned long)&s));
    cmp("epoll other", kcmp(me, me, KCMP_EPOLL_TFD, a, (unsigned long)&s));
    s.toff = 1;
    cmp("epoll toff 1", kcmp(me, me, KCMP_EPOLL_TFD, go[0], (unsigned long)&s));
    s.toff = 0;
    s.tfd = a;
    cmp("epoll fd not in set", kcmp(me, me, KCMP_EPOLL_TFD, go[0], (unsigned long)&s));
    s.efd = a;
    s.tfd = go[0];
    cmp("epoll not an epoll fd", kcmp(me, me, KCMP_EPOLL_TFD, go[0], (unsigned long)&s));
    s.efd = 999;
    cmp("epoll closed epoll fd", kcmp(me, me, KCMP_EPOLL_TFD, go[0], (unsigned long)&s));
    s.efd = ep;
    cmp("epoll closed fd", kcmp(me, me, KCMP_EPOLL_TFD, 999, (unsigned long)&s));
    cmp("epoll bad slot", kcmp(me, me, KCMP_EPOLL_TFD, go[0], 16));

    /* Another user may not look at root's process (nor root's at it? root
     * may: CAP_SYS_PTRACE). */
    int p[2];
    if (pipe(p))
        return 1;
    pid_t user = fork();
    if (user == 0) {
        if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
            _exit(2);
        pid_t self = getpid();
        cmp("user: self vm", kcmp(self, self, KCMP_VM, 0, 0));
        cmp("user: root's process", kcmp(self, me, KCMP_VM, 0, 0));
        cmp("user: root's process first", kcmp(me, self, KCMP_VM, 0, 0));
        cmp("user: root's, bad type", kcmp(self, me, 100, 0, 0));
        cmp("user: no such pid", kcmp(self, 999999, KCMP_VM, 0, 0));
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        char z;
        if (read(go[0], &z, 1) != 1)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    if (read(p[0], &ch, 1) != 1)
        return 1;
    cmp("root: user's process", kcmp(me, user, KCMP_VM, 0, 0));
    if (write(go[1], "x", 1) != 1)
        return 1;
    reap("user child", user);
    return 0;
}
