/* clone's rules for threads: CLONE_THREAD needs CLONE_SIGHAND, which
 * needs CLONE_VM; a raw CLONE_THREAD child shares memory and the pid, and
 * its exit (exit, not exit_group) leaves the caller running; CLONE_PARENT
 * makes a sibling; clone3 makes a thread the same way. */
#include "common.h"
#include <sched.h>
#include <sys/mman.h>

/* struct clone_args (first version, 64 bytes; musl has no <linux/sched.h>). */
struct clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};
#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static volatile int flag;
static volatile int child_tid_word;

int main(void)
{
    show("CLONE_THREAD without CLONE_SIGHAND", syscall(SYS_clone, CLONE_THREAD | CLONE_VM, 0L, 0L, 0L, 0L));
    show("CLONE_SIGHAND without CLONE_VM", syscall(SYS_clone, CLONE_SIGHAND, 0L, 0L, 0L, 0L));

    size_t sz = 64 * 1024;
    char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* A raw thread on its own stack: it sets the flag and calls exit. The
     * child runs on the new stack with no frame to return to, so it does
     * only system calls and stores. */
    long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM
        | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID;
    child_tid_word = -1;
    long tid;
    register long r10 __asm__("r10") = (long)&child_tid_word;
    register long r8 __asm__("r8") = 0;
    __asm__ volatile(
        "syscall\n\t"
        "test %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        /* child: flag = getpid() == parent's? store 1; then exit(0) */
        "movl $1, %[flag]\n\t"
        "mov $60, %%eax\n\t"
        "xor %%edi, %%edi\n\t"
        "syscall\n\t"
        "ud2\n"
        "1:"
        : "=a"(tid)
        : "a"(SYS_clone), "D"(flags), "S"(stack + sz), "d"(&child_tid_word), "r"(r10), "r"(r8), [flag] "m"(flag)
        : "rcx", "r11", "memory");
    out("raw CLONE_THREAD: tid positive %s, parent tid stored %s", yesno(tid > 0), yesno(child_tid_word == tid || child_tid_word == 0));
    /* The tid word is cleared when the thread is gone. */
    /* Read the word once per round: waiting for a value read after the
     * check could wait for a 0 that is already there, forever. */
    for (int seen; (seen = child_tid_word) != 0;)
        syscall(SYS_futex, &child_tid_word, 0 /* FUTEX_WAIT */, seen, NULL, NULL, 0);
    out("thread ran: %s; caller still runs after its exit", yesno(flag == 1));

    /* CLONE_PARENT: the child is our sibling, so we cannot wait for it. */
    pid_t pid = fork();
    if (pid == 0) {
        long c = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0L, 0L, 0L, 0L);
        if (c == 0) {
            usleep(20000);
            _exit(6);
        }
        show("  waitpid(sibling)", waitpid((pid_t)c, NULL, 0));
        _exit(0);
    }
    int st, seen = 0;
    for (;;) {
        pid_t w = wait(&st);
        if (w < 0)
            break;
        if (w != pid)
            out("sibling reaped by the grandparent: %s", wstatus(st));
        seen++;
    }
    out("children reaped: %d", seen);

    struct clone_args args = {0};
    args.flags = CLONE_THREAD;
    show("clone3(CLONE_THREAD alone)", syscall(SYS_clone3, &args, sizeof args));
    show("clone3(size too small)", syscall(SYS_clone3, &args, 8L));
    args.flags = 0;
    args.exit_signal = SIGCHLD;
    long c = syscall(SYS_clone3, &args, sizeof args);
    if (c == 0)
        _exit(8);
    reap("clone3 like fork", (pid_t)c);
    return 0;
}
