/* PTRACE_SYSCALL with TRACESYSGOOD: entry and exit stops alternate and are
 * reported with SIGTRAP|0x80; GET_SYSCALL_INFO and GETEVENTMSG tell entry
 * from exit; at an exit stop SETREGS changes the call's result, at an
 * entry stop orig_rax -1 skips the call with rax as its result. */
#include "ptrace.h"

struct syscall_info {
    uint8_t op;
    uint8_t pad[3];
    uint32_t arch;
    uint64_t ip, sp;
    union {
        struct { uint64_t nr, args[6]; } entry;
        struct { int64_t rval; uint8_t is_error; } exit;
    };
};

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        traceme_and_stop();
        long a = rawsys(SYS_getpid, 0, 0, 0, 0, 0, 0);
        long b = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
        long c = rawsys(SYS_getuid, 0, 0, 0, 0, 0, 0);
        _exit((a == 4242 ? 1 : 0) | (b == 77 ? 2 : 0) | (c == 0 ? 4 : 0));
    }
    pwait("stop", pid);
    pt("SETOPTIONS bad", ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)0x80000000L));
    pt("SETOPTIONS", ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)PTRACE_O_TRACESYSGOOD));
    struct syscall_info info;
    memset(&info, 0, sizeof info);
    long n = ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof info, &info);
    out("GET_SYSCALL_INFO at a signal stop: %ld op %d", n, info.op);
    int in_syscall = 0;
    for (int i = 0; i < 12; i++) {
        if (ptrace(PTRACE_SYSCALL, pid, 0, 0) != 0) {
            out("SYSCALL: %s", errname(errno));
            break;
        }
        int st;
        if (waitpid(pid, &st, __WALL) != pid)
            break;
        if (!WIFSTOPPED(st)) {
            out("end: %s", wstatus(st));
            return 0;
        }
        struct user_regs_struct regs;
        ptrace(PTRACE_GETREGS, pid, 0, &regs);
        unsigned long msg = 0;
        ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
        memset(&info, 0, sizeof info);
        n = ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof info, &info);
        const char *name = regs.orig_rax == SYS_getpid ? "getpid" : regs.orig_rax == SYS_getppid ? "getppid"
                         : regs.orig_rax == SYS_getuid ? "getuid" : regs.orig_rax == SYS_exit_group ? "exit_group"
                         : regs.orig_rax == SYS_rt_sigprocmask ? "rt_sigprocmask" : "other";
        in_syscall = !in_syscall;
        out("%s: %s %s msg %lu info %ld op %d", in_syscall ? "entry" : "exit ", pstatus(st), name, msg, n, info.op);
        if (in_syscall) {
            out("  entry rax is -ENOSYS: %s, nr matches: %s", yesno((long)regs.rax == -ENOSYS),
                yesno(info.entry.nr == regs.orig_rax));
            if (regs.orig_rax == SYS_getppid) {
                regs.orig_rax = -1;
                regs.rax = 77;
                pt("  SETREGS skip", ptrace(PTRACE_SETREGS, pid, 0, &regs));
            }
        } else {
            out("  exit rval matches rax: %s is_error %d", yesno(info.exit.rval == (long)regs.rax), info.exit.is_error);
            if (regs.orig_rax == SYS_getpid) {
                out("  getpid result is the pid: %s", yesno((pid_t)regs.rax == pid));
                regs.rax = 4242;
                pt("  SETREGS result", ptrace(PTRACE_SETREGS, pid, 0, &regs));
            }
        }
    }
    pt("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
    pwait("end", pid);
    return 0;
}
