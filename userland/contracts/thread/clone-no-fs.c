/* clone(CLONE_THREAD) without CLONE_FS: Linux allows it (CLONE_THREAD
 * needs CLONE_SIGHAND, which needs CLONE_VM; CLONE_FS is not required)
 * and gives the thread a copy of its creator's root, working directory
 * and umask, so its chdir and umask leave the rest of the process where
 * it was; with CLONE_FS the same calls move the whole process. */
#include "common.h"
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>

static volatile int flag;
static volatile int child_tid_word;
static volatile long chdir_result = 99, umask_result = 99;
static const char dir_a[] = "a";

/* A raw thread: chdir("a"), umask(077), then exit (no frame to return to,
 * so only system calls and stores). */
static long raw_thread(long flags, char *stack_top)
{
    child_tid_word = -1;
    flag = 0;
    chdir_result = umask_result = 99;
    long tid;
    register long r10 __asm__("r10") = (long)&child_tid_word;
    register long r8 __asm__("r8") = 0;
    register long r12 __asm__("r12") = (long)dir_a;
    __asm__ volatile(
        "syscall\n\t"
        "test %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        "mov %%r12, %%rdi\n\t"
        "mov $80, %%eax\n\t" /* chdir */
        "syscall\n\t"
        "mov %%rax, %[cr]\n\t"
        "mov $0x3f, %%edi\n\t"
        "mov $95, %%eax\n\t" /* umask */
        "syscall\n\t"
        "mov %%rax, %[ur]\n\t"
        "movl $1, %[flag]\n\t"
        "mov $60, %%eax\n\t"
        "xor %%edi, %%edi\n\t"
        "syscall\n\t"
        "ud2\n"
        "1:"
        : "=a"(tid), [flag] "=m"(flag), [cr] "=m"(chdir_result), [ur] "=m"(umask_result)
        : "a"(SYS_clone), "D"(flags), "S"(stack_top), "d"(&child_tid_word), "r"(r10), "r"(r8), "r"(r12)
        : "rcx", "r11", "memory");
    if (tid > 0)
        for (int seen; (seen = child_tid_word) != 0;)
            syscall(SYS_futex, &child_tid_word, 0 /* FUTEX_WAIT */, seen, NULL, NULL, 0);
    return tid;
}

static void where(const char *label)
{
    char buf[256];
    const char *base = "?";
    if (getcwd(buf, sizeof buf)) {
        base = strrchr(buf, '/');
        base = base ? base + 1 : buf;
    }
    mode_t m = umask(022);
    umask(m);
    out("%s: cwd %s, umask %03o", label, strncmp(base, "scratch-", 8) == 0 ? "scratch" : base, m);
}

int main(void)
{
    mkdir("a", 0755);
    umask(022);
    size_t sz = 64 * 1024;
    char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    long base = CLONE_VM | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID;

    long tid = raw_thread(base, stack + sz);
    out("without CLONE_FS: clone %s", tid > 0 ? "ok" : errname(-tid > 0 ? (int)-tid : errno));
    out("  thread ran %s, its chdir(a) %ld, its umask(077) gave %03lo", yesno(flag == 1), chdir_result, umask_result);
    where("  process after");

    tid = raw_thread(base | CLONE_FS, stack + sz);
    out("with CLONE_FS: clone %s", tid > 0 ? "ok" : errname(-tid > 0 ? (int)-tid : errno));
    out("  thread ran %s, its chdir(a) %ld, its umask(077) gave %03lo", yesno(flag == 1), chdir_result, umask_result);
    where("  process after");
    return 0;
}
