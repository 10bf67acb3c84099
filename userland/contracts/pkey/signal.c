/* PKRU across a signal handler: the handler starts with the default PKRU
 * (every key but 0 closed), whatever the thread had; what the handler
 * writes to PKRU is gone after sigreturn, which restores the thread's
 * value from the frame's XSAVE area. The frame's XSAVE area holds the
 * interrupted value. */
#include "pkeys.h"
#include <ucontext.h>

static volatile unsigned in_handler, in_frame;
static volatile int frame_has_pkru;

static void on_usr1(int s, siginfo_t *si, void *ucv)
{
    (void)s;
    (void)si;
    in_handler = rdpkru();
    ucontext_t *uc = ucv;
    const char *fp = (const char *)uc->uc_mcontext.fpregs;
    /* The XSAVE header's XSTATE_BV at 512; PKRU (component 9) at the
     * offset CPUID leaf 0xd sub-leaf 9 gives. */
    unsigned a, b, c, d;
    __cpuid_count(0xd, 9, a, b, c, d);
    unsigned long bv;
    memcpy(&bv, fp + 512, sizeof bv);
    frame_has_pkru = (bv >> 9) & 1;
    unsigned v = 0;
    if (frame_has_pkru)
        memcpy(&v, fp + b, sizeof v);
    in_frame = v;
    wrpkru(0);
}

int main(void)
{
    require_ospke();
    on_signal(SIGUSR1, on_usr1, 0);
    long k = show("alloc", sys_pkey_alloc(0, PKEY_DISABLE_WRITE));
    unsigned before = rdpkru();
    out("pkru before: %#x", before);
    raise(SIGUSR1);
    out("pkru in handler: %#x", in_handler);
    out("frame has pkru: %s, value %#x", yesno(frame_has_pkru), in_frame);
    out("pkru after: %#x (restored: %s)", rdpkru(), yesno(rdpkru() == before));
    wrpkru(0);
    raise(SIGUSR1);
    out("from pkru 0, in handler: %#x, after: %#x", in_handler, rdpkru());
    (void)k;
    return 0;
}
