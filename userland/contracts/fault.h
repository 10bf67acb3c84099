/* try_read()/try_write(): touch one byte and report what happened, catching
 * SIGSEGV and SIGBUS with an SA_SIGINFO handler that jumps back. The result
 * names the signal, si_code and whether si_addr was the touched address:
 *   "ok value=<byte>"  or  "SIGSEGV SEGV_MAPERR addr=same". */
#ifndef CONTRACTS_FAULT_H
#define CONTRACTS_FAULT_H
#include "common.h"
#include <setjmp.h>

static sigjmp_buf fault_jb;
static volatile int fault_sig, fault_code;
static void *volatile fault_addr;

static void fault_handler(int s, siginfo_t *si, void *uc)
{
    (void)uc;
    fault_sig = s;
    fault_code = si->si_code;
    fault_addr = si->si_addr;
    siglongjmp(fault_jb, 1);
}

static void fault_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

static const char *fault_code_name(int sig, int code)
{
    if (sig == SIGSEGV) {
        if (code == SEGV_MAPERR) return "SEGV_MAPERR";
        if (code == SEGV_ACCERR) return "SEGV_ACCERR";
    }
    if (sig == SIGBUS) {
        if (code == BUS_ADRALN) return "BUS_ADRALN";
        if (code == BUS_ADRERR) return "BUS_ADRERR";
        if (code == BUS_OBJERR) return "BUS_OBJERR";
    }
    if (code == SI_KERNEL) return "SI_KERNEL";
    static char buf[16];
    snprintf(buf, sizeof buf, "code%d", code);
    return buf;
}

static const char *fault_try(volatile char *p, int do_write, char val)
{
    static char buf[96];
    fault_install();
    fault_sig = 0;
    if (sigsetjmp(fault_jb, 1) == 0) {
        char v;
        if (do_write) {
            *p = val;
            v = val;
        } else {
            v = *p;
        }
        snprintf(buf, sizeof buf, "ok value=%d", v);
        return buf;
    }
    snprintf(buf, sizeof buf, "%s %s addr=%s", signame(fault_sig),
             fault_code_name(fault_sig, fault_code),
             fault_addr == (void *)p ? "same" : "different");
    return buf;
}

static const char *try_read(volatile void *p) { return fault_try(p, 0, 0); }
static const char *try_write(volatile void *p, char v) __attribute__((unused));
static const char *try_write(volatile void *p, char v) { return fault_try(p, 1, v); }
#endif
