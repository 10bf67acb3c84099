/* Signal frames carry the XSAVE state as Linux's do: uc_flags, the
 * software-reserved bytes of the fxsave area (struct _fpx_sw_bytes:
 * FP_XSTATE_MAGIC1, extended_size, xfeatures, xstate_size), the XSAVE
 * header and FP_XSTATE_MAGIC2 after the area; ymm values survive a handler
 * that clobbers them; the handler itself starts with a clean state
 * (upper halves zero, default MXCSR); a handler sees the interrupted ymm registers in the
 * frame and what it writes there is what sigreturn loads; a frame whose
 * magic1 was cleared is restored as a plain fxsave image (upper halves
 * reset); a header naming features the CPU does not have kills with
 * SIGSEGV; a frame fits an alternate stack of AT_MINSIGSTKSZ bytes whose
 * pages were never touched (the XSAVE to it takes the page faults). */
#include "ymm.h"
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>

#define MAGIC1 0x46505853u
#define MAGIC2 0x46505845u

enum { SHOW, EDIT, FX_ONLY, BAD_HEADER, ALT };
static volatile int mode;
static unsigned xsize, avx_off;
static ymm_set at_entry;
static unsigned mxcsr_at_entry;
static char *alt_base;
static size_t alt_size;
static volatile int on_alt;

static void handler(int sig, siginfo_t *si, void *ctx)
{
    ymm_store(&at_entry);
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr_at_entry));
    (void)sig;
    (void)si;
    ucontext_t *uc = ctx;
    unsigned char *fp = (unsigned char *)uc->uc_mcontext.fpregs;
    uint32_t magic1, ext, xs, magic2;
    uint64_t xfeat, xstate_bv, xcomp_bv;
    memcpy(&magic1, fp + 464, 4);
    memcpy(&ext, fp + 468, 4);
    memcpy(&xfeat, fp + 472, 8);
    memcpy(&xs, fp + 480, 4);
    memcpy(&xstate_bv, fp + 512, 8);
    memcpy(&xcomp_bv, fp + 520, 8);
    if (mode == SHOW) {
        out("uc_flags: %#lx", uc->uc_flags);
        out("fpstate 64-byte aligned: %s", ((uintptr_t)fp & 63) == 0 ? "yes" : "no");
        out("magic1: %#x", magic1);
        out("xfeatures x87/sse/avx: %#llx", (unsigned long long)(xfeat & 7));
        out("xfeatures is xcr0: %s", xfeat == xgetbv0() ? "yes" : "no");
        out("xstate_size is CPUID's: %s", xs == xsize ? "yes" : "no");
        out("extended_size is xstate_size + 4: %s", ext == xs + 4 ? "yes" : "no");
        memcpy(&magic2, fp + xs, 4);
        out("magic2 after the area: %#x", magic2);
        out("header xstate_bv x87/sse/avx: %#llx", (unsigned long long)(xstate_bv & 7));
        out("header xcomp_bv: %#llx", (unsigned long long)xcomp_bv);
        out("frame below fpstate: %s", (unsigned char *)uc < fp ? "yes" : "no");
        int upper_zero = 1;
        for (int i = 0; i < 16; i++)
            upper_zero &= at_entry.r[i].q[2] == 0 && at_entry.r[i].q[3] == 0;
        out("handler starts with ymm upper halves zero: %s", upper_zero ? "yes" : "no");
        out("handler starts with mxcsr %#x", mxcsr_at_entry);
        unsigned frame_mxcsr;
        memcpy(&frame_mxcsr, fp + 24, 4);
        out("interrupted mxcsr in the frame: %#x", frame_mxcsr);
    }
    if (mode == EDIT || mode == SHOW) {
        /* The interrupted ymm registers: low halves in the fxsave area at
         * 160, upper halves in the AVX component. */
        static ymm_set seen, want;
        for (int i = 0; i < 16; i++) {
            memcpy(&seen.r[i].q[0], fp + 160 + 16 * i, 16);
            memcpy(&seen.r[i].q[2], fp + avx_off + 16 * i, 16);
        }
        ymm_pattern(&want, mode == SHOW ? 6 : 7);
        out("interrupted ymm in the frame: %s", ymm_equal(&seen, &want) ? "yes" : "no");
        if (mode == EDIT) {
            /* Change ymm3 (both halves) and ymm12's upper half. */
            uint64_t v[4] = {0x1111, 0x2222, 0x3333, 0x4444};
            memcpy(fp + 160 + 16 * 3, &v[0], 16);
            memcpy(fp + avx_off + 16 * 3, &v[2], 16);
            memcpy(fp + avx_off + 16 * 12, &v[0], 16);
            xstate_bv |= 4;
            memcpy(fp + 512, &xstate_bv, 8);
        }
    }
    if (mode == FX_ONLY) {
        magic1 = 0;
        memcpy(fp + 464, &magic1, 4);
        uint64_t v[2] = {0x5555, 0x6666};
        memcpy(fp + 160 + 16 * 5, v, 16);
    }
    if (mode == ALT)
        on_alt = (char *)&magic1 >= alt_base && (char *)&magic1 < alt_base + alt_size
                 && fp >= (unsigned char *)alt_base && fp + xs + 4 <= (unsigned char *)alt_base + alt_size;
    if (mode == BAD_HEADER) {
        xstate_bv |= 1ull << 62;
        memcpy(fp + 512, &xstate_bv, 8);
    }
    ymm_clobber();
}

static void raise_with(uint64_t seed, ymm_set *in, ymm_set *after)
{
    ymm_pattern(in, seed);
    ymm_syscall(in, after, SYS_kill, getpid(), SIGUSR1, 1);
}

int main(void)
{
    xsize = cpuid_xsave_size();
    avx_off = cpuid_avx_offset();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    ymm_set in, after;

    mode = SHOW;
    unsigned rz = 0x7f80, def = 0x1f80, now;
    __asm__ volatile("ldmxcsr %0" ::"m"(rz));
    raise_with(6, &in, &after);
    __asm__ volatile("stmxcsr %0" : "=m"(now));
    __asm__ volatile("ldmxcsr %0" ::"m"(def));
    out("mxcsr after sigreturn: %#x", now);
    out("ymm kept across a clobbering handler: %s", ymm_equal(&in, &after) ? "yes" : "no");

    mode = EDIT;
    raise_with(7, &in, &after);
    in.r[3].q[0] = 0x1111, in.r[3].q[1] = 0x2222, in.r[3].q[2] = 0x3333, in.r[3].q[3] = 0x4444;
    in.r[12].q[2] = 0x1111, in.r[12].q[3] = 0x2222;
    out("handler's edits to the frame loaded: %s", ymm_equal(&in, &after) ? "yes" : "no");

    mode = FX_ONLY;
    raise_with(8, &in, &after);
    in.r[5].q[0] = 0x5555, in.r[5].q[1] = 0x6666;
    for (int i = 0; i < 16; i++)
        in.r[i].q[2] = in.r[i].q[3] = 0;
    out("without magic1: xmm from the frame, upper halves reset: %s", ymm_equal(&in, &after) ? "yes" : "no");

    /* On an untouched alternate stack of exactly AT_MINSIGSTKSZ bytes. */
    alt_size = getauxval(AT_MINSIGSTKSZ);
    alt_base = mmap(NULL, alt_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    stack_t ss = {.ss_sp = alt_base, .ss_size = alt_size, .ss_flags = 0};
    check("sigaltstack of AT_MINSIGSTKSZ bytes", sigaltstack(&ss, NULL));
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    mode = ALT;
    raise_with(10, &in, &after);
    out("frame and fpstate on the alternate stack: %s", on_alt ? "yes" : "no");
    out("ymm kept across a handler on it: %s", ymm_equal(&in, &after) ? "yes" : "no");
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);

    /* A header with a feature bit XCR0 does not have: SIGSEGV. */
    pid_t child = fork();
    if (child == 0) {
        mode = BAD_HEADER;
        raise_with(9, &in, &after);
        out("bad header returned");
        _exit(0);
    }
    int st;
    waitpid(child, &st, 0);
    out("bad xsave header: %s", WIFSIGNALED(st) ? signame(WTERMSIG(st)) : "exited");
    return 0;
}
