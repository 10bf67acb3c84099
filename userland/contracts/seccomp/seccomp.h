/* Helpers of the seccomp tests: the uapi constants (musl ships no
 * <linux/seccomp.h> or <linux/filter.h>), building and installing
 * filters, and reading this process's seccomp lines of /proc/PID/status. */
#ifndef CONTRACTS_SECCOMP_H
#define CONTRACTS_SECCOMP_H

#include "common.h"
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define SECCOMP_SET_MODE_STRICT_ 0
#define SECCOMP_SET_MODE_FILTER_ 1
#define SECCOMP_GET_ACTION_AVAIL_ 2
#define SECCOMP_GET_NOTIF_SIZES_ 3
#define FLAG_TSYNC 1u
#define FLAG_LOG 2u
#define FLAG_SPEC_ALLOW 4u
#define FLAG_NEW_LISTENER 8u
#define FLAG_TSYNC_ESRCH 16u
#define FLAG_WAIT_KILLABLE_RECV 32u
#define RET_KILL_PROCESS 0x80000000u
#define RET_KILL_THREAD 0x00000000u
#define RET_TRAP 0x00030000u
#define RET_ERRNO 0x00050000u
#define RET_USER_NOTIF 0x7fc00000u
#define RET_TRACE 0x7ff00000u
#define RET_LOG 0x7ffc0000u
#define RET_ALLOW 0x7fff0000u
#define ARCH_X86_64 0xc000003eu
#define SYS_SECCOMP_ 1
#define PR_SET_NO_NEW_PRIVS_ 38
#define PR_GET_NO_NEW_PRIVS_ 39

/* struct sock_filter and struct sock_fprog. */
struct insn { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct fprog { unsigned short len; struct insn *filter; };

/* Classic BPF opcodes. */
#define LD_W_ABS 0x20
#define LD_W_LEN 0x80
#define LD_H_ABS 0x28
#define LD_B_ABS 0x30
#define LD_W_IND 0x40
#define LD_IMM 0x00
#define LDX_IMM 0x01
#define LD_MEM 0x60
#define LDX_MEM 0x61
#define ST_ 0x02
#define STX_ 0x03
#define ALU_ADD_K 0x04
#define ALU_DIV_K 0x34
#define ALU_DIV_X 0x3c
#define ALU_MOD_K 0x94
#define ALU_LSH_K 0x64
#define ALU_AND_K 0x54
#define ALU_NEG 0x84
#define JA_ 0x05
#define JEQ_K 0x15
#define JGE_K 0x35
#define RET_K 0x06
#define RET_A 0x16
#define TAX_ 0x07

#define I(c, t, f, kk) ((struct insn){ (c), (t), (f), (kk) })
/* seccomp_data offsets. */
#define OFF_NR 0
#define OFF_ARCH 4
#define OFF_IP 8
#define OFF_ARG(n) (16 + 8 * (n))

static long sc_install(unsigned flags, struct insn *prog, unsigned short len) __attribute__((unused));
static long sc_install(unsigned flags, struct insn *prog, unsigned short len)
{
    struct fprog p = { len, prog };
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER_, flags, &p);
}

/* A filter giving `action` to system call `nr` and ALLOW to the rest. */
static long sc_on(unsigned flags, int nr, uint32_t action) __attribute__((unused));
static long sc_on(unsigned flags, int nr, uint32_t action)
{
    struct insn prog[] = {
        I(LD_W_ABS, 0, 0, OFF_NR),
        I(JEQ_K, 0, 1, (uint32_t)nr),
        I(RET_K, 0, 0, action),
        I(RET_K, 0, 0, RET_ALLOW),
    };
    return sc_install(flags, prog, 4);
}

/* Prints the NoNewPrivs, Seccomp and Seccomp_filters lines of `path`. */
static void sc_status(const char *label, const char *path) __attribute__((unused));
static void sc_status(const char *label, const char *path)
{
    char buf[8192];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        n = 0;
    buf[n] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "NoNewPrivs:", 11) || !strncmp(line, "Seccomp:", 8) || !strncmp(line, "Seccomp_filters:", 16)) {
            for (char *c = line; *c; c++)
                if (*c == '\t')
                    *c = ' ';
            out("%s: %s", label, line);
        }
}

#endif
