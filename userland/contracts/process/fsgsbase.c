/* The FS and GS base instructions in user mode: AT_HWCAP2 says whether
 * they may be used (HWCAP2_FSGSBASE); RDFSBASE agrees with
 * arch_prctl(ARCH_GET_FS); a GS base set with ARCH_SET_GS or WRGSBASE is
 * what the other reports, addresses memory through %gs, survives context
 * switches (sleeps, yields) and fork, and execve resets it to 0. */
#include "common.h"
#include <sched.h>
#include <sys/auxv.h>

#define ARCH_SET_GS 0x1001
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004
#define HWCAP2_FSGSBASE (1 << 1)

static unsigned long rdgsbase(void)
{
    unsigned long v;
    __asm__ volatile("rdgsbase %0" : "=r"(v));
    return v;
}

static unsigned long gs_word(void)
{
    unsigned long v;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(v));
    return v;
}

static unsigned long a_word = 0x1111, b_word = 0x2222;

int main(int argc, char **argv)
{
    if (argc > 1) {
        out("after execve: GS base %s", rdgsbase() == 0 ? "0" : "kept");
        return 0;
    }
    int have = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
    out("HWCAP2_FSGSBASE: %d", have);
    if (!have)
        return 0;
    unsigned long fs = 0, fsi, gs = 1;
    syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
    __asm__ volatile("rdfsbase %0" : "=r"(fsi));
    out("RDFSBASE equals ARCH_GET_FS: %s", fs == fsi && fs ? "yes" : "no");
    syscall(SYS_arch_prctl, ARCH_GET_GS, &gs);
    out("GS base at start: %s", gs == 0 && rdgsbase() == 0 ? "0" : "other");

    check("ARCH_SET_GS", syscall(SYS_arch_prctl, ARCH_SET_GS, &a_word));
    out("RDGSBASE sees it: %s, %%gs:0 = %#lx", rdgsbase() == (unsigned long)&a_word ? "yes" : "no", gs_word());
    __asm__ volatile("wrgsbase %0" ::"r"(&b_word));
    syscall(SYS_arch_prctl, ARCH_GET_GS, &gs);
    out("after WRGSBASE: ARCH_GET_GS sees it: %s, %%gs:0 = %#lx", gs == (unsigned long)&b_word ? "yes" : "no", gs_word());
    int kept = 1;
    for (int i = 0; i < 20; i++) {
        sched_yield();
        usleep(2000);
        if (rdgsbase() != (unsigned long)&b_word)
            kept = 0;
    }
    out("kept across sleeps and yields: %s", kept ? "yes" : "no");
    pid_t pid = fork();
    if (pid == 0) {
        out("child: %%gs:0 = %#lx", gs_word());
        __asm__ volatile("wrgsbase %0" ::"r"(&a_word));
        usleep(20000);
        out("child after its own WRGSBASE: %%gs:0 = %#lx", gs_word());
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    out("parent unaffected by the child: %%gs:0 = %#lx", gs_word());
    check("ARCH_SET_GS kernel address", syscall(SYS_arch_prctl, ARCH_SET_GS, 0xffff800000000000UL));
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        char *av[] = { argv[0], "exec", NULL };
        execv("/proc/self/exe", av);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    out("exec child status: %d", WEXITSTATUS(st));
    return 0;
}
