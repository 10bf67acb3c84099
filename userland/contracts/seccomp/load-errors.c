/* What seccomp(SECCOMP_SET_MODE_FILTER) refuses, and with which error, in
 * Linux's order: flags, the struct sock_fprog (EFAULT), the length, no
 * no_new_privs without CAP_SYS_ADMIN (EACCES), the program pointer, the
 * classic BPF checks and seccomp's own (EINVAL), the instructions of all
 * filters together (ENOMEM); SECCOMP_GET_ACTION_AVAIL and
 * SECCOMP_GET_NOTIF_SIZES. */
#include "seccomp.h"
#include <sys/mman.h>

static struct insn allow[] = { I(RET_K, 0, 0, RET_ALLOW) };

/* Each in a child of its own: a filter that loads is installed there
 * and runs over the child's remaining calls only. */
static void try(const char *label, struct insn *prog, unsigned short len)
{
    pid_t pid = fork();
    if (pid == 0) {
        show(label, sc_install(0, prog, len));
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        out("%s: child %s", label, wstatus(st));
}

int main(void)
{
    void *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    /* As uid 1000 without no_new_privs: EACCES, after the length check. */
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(1000) || setuid(1000))
            _exit(1);
        show("nobody: allow", sc_install(0, allow, 1));
        show("nobody: length 0", sc_install(0, allow, 0));
        show("nobody: bad fprog", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, 0, bad));
        show("nobody: prctl", prctl(PR_SET_SECCOMP, 2, (long)&(struct fprog){ 1, allow }, 0, 0));
        prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
        show("nobody with no_new_privs: allow", sc_install(0, allow, 1));
        _exit(0);
    }
    reap("nobody", pid);

    show("flag 64", sc_install(64, allow, 1));
    show("flag 1<<31", sc_install(1u << 31, allow, 1));
    show("TSYNC|NEW_LISTENER", sc_install(FLAG_TSYNC | FLAG_NEW_LISTENER, allow, 1));
    show("WAIT_KILLABLE_RECV alone", sc_install(FLAG_WAIT_KILLABLE_RECV, allow, 1));
    show("null fprog", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, 0, NULL));
    show("bad fprog", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, 0, bad));
    try("length 0", allow, 0);
    try("length 4097", allow, 4097);
    try("null program", NULL, 1);
    try("unmapped program", bad, 1);
    show("null program, length 0", sc_install(0, NULL, 0));

    struct insn p[8];
#define T(label, n, ...) do { struct insn q[] = { __VA_ARGS__ }; memcpy(p, q, sizeof q); try(label, p, n); } while (0)
    T("no return at the end", 1, I(LD_W_ABS, 0, 0, 0));
    T("return, then load", 2, I(RET_K, 0, 0, RET_ALLOW), I(LD_W_ABS, 0, 0, 0));
    T("load at 2", 2, I(LD_W_ABS, 0, 0, 2), I(RET_K, 0, 0, RET_ALLOW));
    T("load at 64", 2, I(LD_W_ABS, 0, 0, 64), I(RET_K, 0, 0, RET_ALLOW));
    T("load at 60", 2, I(LD_W_ABS, 0, 0, 60), I(RET_K, 0, 0, RET_ALLOW));
    T("half-word load", 2, I(LD_H_ABS, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("byte load", 2, I(LD_B_ABS, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("indirect load", 2, I(LD_W_IND, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("ancillary load", 2, I(LD_W_ABS, 0, 0, 0xfffff000), I(RET_K, 0, 0, RET_ALLOW));
    T("length load", 2, I(LD_W_LEN, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("divide by 0", 2, I(ALU_DIV_K, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("divide by 3", 2, I(ALU_DIV_K, 0, 0, 3), I(RET_K, 0, 0, RET_ALLOW));
    T("divide by X", 2, I(ALU_DIV_X, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("modulo", 2, I(ALU_MOD_K, 0, 0, 3), I(RET_K, 0, 0, RET_ALLOW));
    T("shift by 32", 2, I(ALU_LSH_K, 0, 0, 32), I(RET_K, 0, 0, RET_ALLOW));
    T("shift by 31", 2, I(ALU_LSH_K, 0, 0, 31), I(RET_K, 0, 0, RET_ALLOW));
    T("negate", 2, I(ALU_NEG, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("unknown opcode 0xff", 2, I(0xff, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("store to M[16]", 2, I(ST_, 0, 0, 16), I(RET_K, 0, 0, RET_ALLOW));
    T("store to M[15]", 2, I(ST_, 0, 0, 15), I(RET_K, 0, 0, RET_ALLOW));
    T("load of unwritten M[0]", 2, I(LD_MEM, 0, 0, 0), I(RET_A, 0, 0, 0));
    T("load of written M[0]", 3, I(STX_, 0, 0, 0), I(LD_MEM, 0, 0, 0), I(RET_A, 0, 0, 0));
    T("M[1] written on one path", 5, I(LD_W_ABS, 0, 0, 0), I(JEQ_K, 0, 1, 1), I(ST_, 0, 0, 1), I(LDX_MEM, 0, 0, 1), I(RET_K, 0, 0, RET_ALLOW));
    T("jump past the end", 2, I(JEQ_K, 1, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("false jump past the end", 2, I(JEQ_K, 0, 1, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("ja past the end", 2, I(JA_, 0, 0, 1), I(RET_K, 0, 0, RET_ALLOW));
    T("ja to the end", 3, I(JA_, 0, 0, 1), I(RET_K, 0, 0, 0), I(RET_K, 0, 0, RET_ALLOW));
    T("ja 0xffffffff", 2, I(JA_, 0, 0, 0xffffffff), I(RET_K, 0, 0, RET_ALLOW));
    T("return X (no such opcode)", 1, I(0x0e, 0, 0, 0));

    /* 4096 instructions are allowed; all filters together at most 32768
     * counting 4 more for each earlier one: the 8th of 4096 is ENOMEM. */
    pid = fork();
    if (pid == 0) {
        struct insn *big = calloc(4096, sizeof *big);
        for (int i = 0; i < 4096; i++)
            big[i] = I(RET_K, 0, 0, RET_ALLOW);
        for (int i = 1; i <= 8; i++) {
            char label[32];
            snprintf(label, sizeof label, "4096 instructions #%d", i);
            show(label, sc_install(0, big, 4096));
        }
        sc_status("status", "/proc/self/status");
        _exit(0);
    }
    reap("big filters", pid);

    uint32_t a;
    static const struct { const char *name; uint32_t action; } acts[] = {
        { "KILL_PROCESS", RET_KILL_PROCESS }, { "KILL_THREAD", RET_KILL_THREAD }, { "TRAP", RET_TRAP },
        { "ERRNO", RET_ERRNO }, { "TRACE", RET_TRACE }, { "LOG", RET_LOG }, { "ALLOW", RET_ALLOW },
        { "ERRNO|5", RET_ERRNO | 5 }, { "0x00010000", 0x00010000 }, { "0x7fff0001", 0x7fff0001 },
    };
    for (unsigned i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        char label[64];
        a = acts[i].action;
        snprintf(label, sizeof label, "available %s", acts[i].name);
        show(label, syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL_, 0, &a));
    }
    a = RET_ALLOW;
    show("available, flags 1", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL_, 1, &a));
    show("available, bad pointer", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL_, 0, bad));
    uint16_t sizes[3] = { 0, 0, 0 };
    show("notif sizes", syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES_, 0, sizes));
    out("sizes: notif %u resp %u data %u", sizes[0], sizes[1], sizes[2]);
    show("notif sizes, flags 1", syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES_, 1, sizes));
    show("notif sizes, bad pointer", syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES_, 0, bad));
    return 0;
}
