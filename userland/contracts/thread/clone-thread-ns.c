/* clone with CLONE_THREAD and new namespaces, as Linux 6.1's
 * copy_process and copy_namespaces rule: a thread may not be in another
 * user or PID namespace than its process (CLONE_NEWUSER, CLONE_NEWPID,
 * or any thread after unshare(CLONE_NEWPID): EINVAL), CLONE_NEWNS and
 * CLONE_NEWUSER never go with CLONE_FS, CLONE_NEWIPC never with
 * CLONE_SYSVSEM (EINVAL); the others make the thread a namespace of its
 * own (/proc/thread-self/ns shows it, the process's stays), and need
 * CAP_SYS_ADMIN (EPERM). */
#include "common.h"
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static const char *ns_name;
static char thread_ns[128];
static volatile int ctid;

static int thread_main(void *arg)
{
    (void)arg;
    char path[64] = "/proc/thread-self/ns/";
    strcat(path, ns_name);
    long n = syscall(SYS_readlink, path, thread_ns, sizeof thread_ns - 1);
    if (n > 0)
        thread_ns[n] = 0;
    else
        strcpy(thread_ns, "unreadable");
    return 0;
}

static void try_thread(const char *label, long extra, const char *ns)
{
    static char *stack;
    size_t sz = 256 * 1024;
    if (!stack)
        stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ns_name = ns ? ns : "mnt";
    thread_ns[0] = 0;
    ctid = 1;
    long flags = CLONE_VM | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | extra;
    int tid = clone(thread_main, stack + sz, (int)flags, NULL, NULL, NULL, &ctid);
    if (tid < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    for (int seen; (seen = ctid) != 0;)
        syscall(SYS_futex, &ctid, 0 /* FUTEX_WAIT */, seen, NULL, NULL, 0);
    char mine[128], path[64];
    snprintf(path, sizeof path, "/proc/self/ns/%s", ns_name);
    long n = readlink(path, mine, sizeof mine - 1);
    mine[n > 0 ? n : 0] = 0;
    out("%s: ok, the thread's %s namespace is %s", label, ns_name, strcmp(mine, thread_ns) ? "its own" : "the process's");
}

int main(void)
{
    try_thread("plain thread", 0, "mnt");
    try_thread("CLONE_NEWNS|CLONE_FS", CLONE_NEWNS | CLONE_FS, "mnt");
    try_thread("CLONE_NEWUSER|CLONE_FS", CLONE_NEWUSER | CLONE_FS, "user");
    try_thread("CLONE_NEWUSER", CLONE_NEWUSER, "user");
    try_thread("CLONE_NEWPID", CLONE_NEWPID, "pid");
    try_thread("CLONE_NEWIPC|CLONE_SYSVSEM", CLONE_NEWIPC | CLONE_SYSVSEM, "ipc");
    try_thread("CLONE_NEWNS", CLONE_NEWNS, "mnt");
    try_thread("CLONE_NEWUTS", CLONE_NEWUTS, "uts");
    try_thread("CLONE_NEWIPC", CLONE_NEWIPC, "ipc");
    try_thread("CLONE_NEWNET", CLONE_NEWNET, "net");
    try_thread("CLONE_NEWCGROUP", CLONE_NEWCGROUP, "cgroup");
    try_thread("CLONE_NEWUTS|CLONE_NEWNS|CLONE_NEWNET", CLONE_NEWUTS | CLONE_NEWNS | CLONE_NEWNET, "uts");

    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWPID)", unshare(CLONE_NEWPID));
        try_thread("plain thread after unshare(CLONE_NEWPID)", 0, "mnt");
        _exit(0);
    }
    reap("child", pid);

    pid = fork();
    if (pid == 0) {
        setgid(65534);
        setuid(65534);
        try_thread("CLONE_NEWUTS as uid 65534", CLONE_NEWUTS, "uts");
        try_thread("CLONE_NEWUSER as uid 65534", CLONE_NEWUSER, "user");
        _exit(0);
    }
    reap("unprivileged child", pid);
    return 0;
}
