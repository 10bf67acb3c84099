/* clone3 with CLONE_INTO_CGROUP: the child starts in the cgroup the
 * descriptor names; descriptors that are not cgroup directories, a
 * removed cgroup, one with controllers for its children, and a clone_args
 * too short for the field are refused. */
#include "cg.h"
#include <sched.h>

#define A CG "/t-clone3"
#define CLONE_INTO_CGROUP_ 0x200000000ULL

struct args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

static const char *expected = "0::/t-clone3/in\n";

static long spawn(int fd, size_t size)
{
    struct args a = {.flags = CLONE_INTO_CGROUP_, .exit_signal = SIGCHLD, .cgroup = (uint64_t)fd};
    long pid = syscall(SYS_clone3, &a, size);
    if (pid == 0) {
        char buf[128];
        int ok = cg_read("/proc/self/cgroup", buf, sizeof buf) > 0;
        _exit(ok && !strcmp(buf, expected) ? 0 : 1);
    }
    return pid;
}

/* clone3 of a thread (CLONE_THREAD) into a cgroup: a thread made by it
 * would leave at once through exit(2), in the assembly itself. */
static long clone3_thread(int fd, void *stack)
{
    struct args a = {.flags = CLONE_INTO_CGROUP_ | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD,
                     .stack = (uint64_t)stack, .stack_size = 4096, .cgroup = (uint64_t)fd};
    long ret;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "mov $60, %%eax\n\t"
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "1:\n\t"
                     : "=a"(ret)
                     : "a"((long)SYS_clone3), "D"(&a), "S"(sizeof a)
                     : "rcx", "r11", "memory");
    return ret;
}

static void try_spawn(const char *label, int fd, size_t size)
{
    long pid = spawn(fd, size);
    if (pid < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    int st;
    waitpid(pid, &st, 0);
    out("%s: child started in the cgroup: %s", label, yesno(WIFEXITED(st) && WEXITSTATUS(st) == 0));
}

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    mkdir(A "/in", 0755);
    int fd = open(A "/in", O_RDONLY | O_DIRECTORY);
    try_spawn("into a cgroup", fd, sizeof(struct args));
    int path_fd = open(A "/in", O_PATH);
    try_spawn("through an O_PATH descriptor", path_fd, sizeof(struct args));
    try_spawn("clone_args of version 1", fd, 80);
    static char stack[4096] __attribute__((aligned(16)));
    long t = clone3_thread(fd, stack);
    out("a thread into another cgroup: %s", t < 0 ? errname((int)-t) : "created");
    int file = open(A "/in/cgroup.procs", O_RDONLY);
    try_spawn("a cgroup file", file, sizeof(struct args));
    int tmp = open("/tmp", O_RDONLY | O_DIRECTORY);
    try_spawn("another directory", tmp, sizeof(struct args));
    try_spawn("a closed descriptor", 99, sizeof(struct args));
    cg_try("root +pids", CG "/cgroup.subtree_control", "+pids");
    cg_try("a +pids", A "/cgroup.subtree_control", "+pids");
    int a = open(A, O_RDONLY | O_DIRECTORY);
    expected = "0::/t-clone3\n";
    try_spawn("a cgroup with only threaded controllers for its children", a, sizeof(struct args));
    cg_try("root +memory", CG "/cgroup.subtree_control", "+memory");
    cg_try("a +memory", A "/cgroup.subtree_control", "+memory");
    try_spawn("a cgroup with memory for its children", a, sizeof(struct args));
    cg_try("a -memory", A "/cgroup.subtree_control", "-memory");
    cg_try("root -memory", CG "/cgroup.subtree_control", "-memory");
    expected = "0::/t-clone3/in\n";
    cg_try("a -pids", A "/cgroup.subtree_control", "-pids");
    cg_try("root -pids", CG "/cgroup.subtree_control", "-pids");
    rmdir(A "/in");
    try_spawn("a removed cgroup", fd, sizeof(struct args));
    rmdir(A);
    cg_umount();
    return 0;
}
