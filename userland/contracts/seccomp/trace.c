/* SECCOMP_RET_TRACE under a tracer with PTRACE_O_TRACESECCOMP: a
 * PTRACE_EVENT_SECCOMP stop with the filter's data as the event message
 * and rax -ENOSYS; the tracer may let the call run, skip it (orig_rax -1,
 * its own rax as the result) or change it (another number, judged again
 * by the filters); PTRACE_GET_SYSCALL_INFO there (op SECCOMP, ret_data);
 * a tracer without the option: ENOSYS. */
#include "seccomp.h"
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#define EVENT_SECCOMP 7
#define O_TRACESECCOMP 0x80

static void tracee(void)
{
    long ppid = getppid();
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    raise(SIGSTOP);
    prctl(PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0);
    struct insn prog[] = {
        I(LD_W_ABS, 0, 0, OFF_NR),
        I(JEQ_K, 0, 1, SYS_getppid),
        I(RET_K, 0, 0, RET_TRACE | 0x42),
        I(JEQ_K, 0, 1, SYS_getpgid),
        I(RET_K, 0, 0, RET_ERRNO | 17),
        I(RET_K, 0, 0, RET_ALLOW),
    };
    if (sc_install(0, prog, 6))
        _exit(2);
    long r0 = rawsys(SYS_getppid, 0x5a5a, 0, 0, 0, 0, 0);
    long r1 = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
    long r2 = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
    long r3 = rawsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
    out("tracee: skipped %ld", r0);
    out("tracee: allowed %s", r1 == ppid ? "ran" : r1 < 0 ? errname((int)-r1) : "other");
    out("tracee: changed to getpid %s", r2 == getpid() ? "ran" : r2 < 0 ? errname((int)-r2) : "other");
    out("tracee: changed to getpgid %ld", r3);
    _exit(0);
}

int main(void)
{
    for (int with_option = 0; with_option < 2; with_option++) {
        pid_t pid = fork();
        if (pid == 0)
            tracee();
        int st;
        waitpid(pid, &st, 0);
        if (with_option)
            ptrace(PTRACE_SETOPTIONS, pid, 0, O_TRACESECCOMP);
        ptrace(PTRACE_CONT, pid, 0, 0);
        for (int n = 0;; n++) {
            if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
                break;
            int event = st >> 16;
            if (event != EVENT_SECCOMP) {
                out("stop: %s event %d", signame(WSTOPSIG(st)), event);
                ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st));
                continue;
            }
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
            long orig = ptrace(PTRACE_PEEKUSER, pid, offsetof(struct user_regs_struct, orig_rax), 0);
            long rax = ptrace(PTRACE_PEEKUSER, pid, offsetof(struct user_regs_struct, rax), 0);
            out("seccomp stop %d: %s, message %#lx, orig_rax %ld, rax %ld", n, signame(WSTOPSIG(st)), msg, orig, rax);
            if (n == 0) {
                /* PTRACE_GET_SYSCALL_INFO: op SECCOMP (3), the call and
                 * the filter's data after the arguments. */
                unsigned char info[96];
                memset(info, 0, sizeof info);
                long size = ptrace(0x420e /* PTRACE_GET_SYSCALL_INFO */, pid, sizeof info, info);
                uint64_t nr, arg0;
                uint32_t arch, data;
                memcpy(&arch, info + 4, 4);
                memcpy(&nr, info + 24, 8);
                memcpy(&arg0, info + 32, 8);
                memcpy(&data, info + 80, 4);
                out("syscall info: size %ld, op %u, arch %#x, nr %lu, arg0 %#lx, ret_data %#x", size, info[0], arch, (unsigned long)nr, (unsigned long)arg0, data);
            }
            if (n == 0) {
                /* Skip it with a result of our own. */
                ptrace(PTRACE_POKEUSER, pid, offsetof(struct user_regs_struct, orig_rax), -1L);
                ptrace(PTRACE_POKEUSER, pid, offsetof(struct user_regs_struct, rax), 777L);
            } else if (n == 2) {
                ptrace(PTRACE_POKEUSER, pid, offsetof(struct user_regs_struct, orig_rax), (long)SYS_getpid);
            } else if (n == 3) {
                /* getpgid: judged again, ERRNO 17. */
                ptrace(PTRACE_POKEUSER, pid, offsetof(struct user_regs_struct, orig_rax), (long)SYS_getpgid);
            }
            ptrace(PTRACE_CONT, pid, 0, 0);
        }
        out("with the option %d: %s", with_option, wstatus(st));
    }
    return 0;
}
