/* What a filter reads in struct seccomp_data: nr, arch
 * (AUDIT_ARCH_X86_64), instruction_pointer (after the syscall
 * instruction) and the six arguments (both halves); the length loads read
 * 64. The number is the low 32 bits of rax (its upper half is ignored, by
 * the filter and by the call); numbers with the x32 bit or past the table
 * reach the filter as they are and fail with ENOSYS when allowed. */
#include "seccomp.h"

/* A filter for getppid returning ERRNO with the low 12 bits of the
 * 32-bit word at `off`; ALLOW for other calls. */
static long word_filter(uint32_t off)
{
    struct insn prog[] = {
        I(LD_W_ABS, 0, 0, OFF_NR),
        I(JEQ_K, 0, 5, SYS_getppid),
        I(LD_W_ABS, 0, 0, off),
        I(ALU_ADD_K, 0, 0, 0),
        I(ALU_AND_K, 0, 0, 0xfff),
        I(0x44 /* ALU OR K */, 0, 0, RET_ERRNO),
        I(RET_A, 0, 0, 0),
        I(RET_K, 0, 0, RET_ALLOW),
    };
    return sc_install(0, prog, 8);
}

extern char after_data_call[];
__attribute__((noinline)) static long call6(long a, long b, long c, long d, long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall\n.globl after_data_call\nafter_data_call:"
                     : "=a"(ret)
                     : "a"(SYS_getppid), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

static void field(const char *label, uint32_t off, long expect)
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        if (word_filter(off))
            _exit(2);
        long r = call6(0x1111111100000101L, 0x2222222200000202L, 0x3333333300000303L,
                       0x4444444400000404L, 0x5555555500000505L, 0x6666666600000606L);
        out("%s: %#lx%s", label, -r, expect < 0 ? "" : (-r == expect ? " (as expected)" : " (unexpected)"));
        _exit(0);
    }
    reap(label, pid);
}

int main(void)
{
    field("nr", OFF_NR, -1);
    field("arch", OFF_ARCH, -1);
    field("ip low", OFF_IP, (long)after_data_call & 0xfff);
    field("ip high", OFF_IP + 4, ((unsigned long)after_data_call >> 32) & 0xfff);
    for (int i = 0; i < 6; i++) {
        char l[32];
        snprintf(l, sizeof l, "arg%d low", i);
        field(l, OFF_ARG(i), -1);
        snprintf(l, sizeof l, "arg%d high", i);
        field(l, OFF_ARG(i) + 4, -1);
    }

    /* The upper half of rax, the x32 bit, numbers past the table. */
    pid_t parent = getpid();
    show("upper half set: getppid ran", rawsys(0x100000000L | SYS_getppid, 0, 0, 0, 0, 0, 0) == getppid());
    show("x32 bit", rawsys(0x40000000L | SYS_getppid, 0, 0, 0, 0, 0, 0));
    show("512", rawsys(512, 0, 0, 0, 0, 0, 0));
    show("547", rawsys(547, 0, 0, 0, 0, 0, 0));
    show("1000", rawsys(1000, 0, 0, 0, 0, 0, 0));
    show("-1", rawsys(-1, 0, 0, 0, 0, 0, 0));
    pid_t pid = fork();
    if (pid == 0) {
        /* ERRNO with the number's low 12 bits for numbers >= 0x40000000
         * (the x32 bit) and for 1000; ALLOW below. */
        struct insn prog[] = {
            I(LD_W_ABS, 0, 0, OFF_NR),
            I(JGE_K, 2, 0, 0x40000000),
            I(JEQ_K, 1, 0, 1000),
            I(RET_K, 0, 0, RET_ALLOW),
            I(ALU_AND_K, 0, 0, 0xfff),
            I(0x44, 0, 0, RET_ERRNO),
            I(RET_A, 0, 0, 0),
        };
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        if (sc_install(0, prog, 7))
            _exit(2);
        show("filtered: x32 getppid", rawsys(0x40000000L | SYS_getppid, 0, 0, 0, 0, 0, 0));
        show("filtered: 1000", rawsys(1000, 0, 0, 0, 0, 0, 0));
        show("filtered: upper half + 1000", rawsys(0x700000000L | 1000, 0, 0, 0, 0, 0, 0));
        show("filtered: 512", rawsys(512, 0, 0, 0, 0, 0, 0));
        show("filtered: getppid", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0) == parent);
        _exit(0);
    }
    reap("filtered child", pid);

    /* The length loads read sizeof(struct seccomp_data). */
    pid = fork();
    if (pid == 0) {
        struct insn prog[] = {
            I(LD_W_ABS, 0, 0, OFF_NR),
            I(JEQ_K, 0, 3, SYS_getppid),
            I(LD_W_LEN, 0, 0, 0),
            I(0x44, 0, 0, RET_ERRNO),
            I(RET_A, 0, 0, 0),
            I(RET_K, 0, 0, RET_ALLOW),
        };
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        if (sc_install(0, prog, 6))
            _exit(2);
        show("length load", rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0));
        _exit(0);
    }
    reap("length child", pid);
    return 0;
}
