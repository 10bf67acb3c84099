/* The segment selectors a 64-bit program runs with are Linux's (__USER_CS
 * 0x33, __USER_DS 0x2b, data segments null), as the registers and a
 * signal handler's saved context show them (debuggers tell 64-bit code
 * by them). */
#define _GNU_SOURCE
#include "../common.h"
#include <ucontext.h>

static volatile unsigned long frame_csgsfs;

static void handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    frame_csgsfs = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_CSGSFS];
}

int main(void)
{
    unsigned short cs, ss, ds, es;
    __asm__ volatile("mov %%cs, %0" : "=r"(cs));
    __asm__ volatile("mov %%ss, %0" : "=r"(ss));
    __asm__ volatile("mov %%ds, %0" : "=r"(ds));
    __asm__ volatile("mov %%es, %0" : "=r"(es));
    out("cs %#x ss %#x ds %#x es %#x", cs, ss, ds, es);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("signal frame: cs %#lx ss %#lx", frame_csgsfs & 0xffff, frame_csgsfs >> 48);
    __asm__ volatile("mov %%ss, %0" : "=r"(ss));
    out("ss after the handler: %#x", ss);
    return 0;
}
