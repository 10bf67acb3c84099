/* sigaltstack + SA_ONSTACK: the handler runs on the alternate stack and
 * sees SS_ONSTACK; a stack overflow's SIGSEGV can be handled there; too
 * small a stack is ENOMEM; changing it while on it is EPERM. */
#include "common.h"
#include <sys/mman.h>

static char *alt;
static size_t altsz = 64 * 1024;
static volatile int on_alt, flags_inside, change_err;

static void h(int s)
{
    (void)s;
    char local;
    on_alt = (&local >= alt && &local < alt + altsz);
    stack_t cur;
    sigaltstack(NULL, &cur);
    flags_inside = cur.ss_flags;
    stack_t n = {.ss_sp = alt, .ss_size = altsz, .ss_flags = 0};
    change_err = sigaltstack(&n, NULL) < 0 ? errno : 0;
}

static void overflow_handler(int s)
{
    char local;
    out("SIGSEGV from overflow handled on the alternate stack: %s", yesno(&local >= alt && &local < alt + altsz));
    (void)s;
    _exit(0);
}

static volatile int limit = 1 << 30; /* never reached: the stack ends first */

static int recurse(int n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    if (n >= limit)
        return 0;
    return recurse(n + 1) + pad[0];
}

int main(void)
{
    alt = malloc(altsz);
    stack_t ss = {.ss_sp = alt, .ss_size = altsz, .ss_flags = 0}, old;
    check("sigaltstack", sigaltstack(&ss, &old));
    out("previous: SS_DISABLE=%s", yesno(old.ss_flags & SS_DISABLE));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("handler on alternate stack: %s, SS_ONSTACK inside: %s, change while on it: %s", yesno(on_alt),
        yesno(flags_inside & SS_ONSTACK), errname(change_err));
    stack_t cur;
    sigaltstack(NULL, &cur);
    out("after: ss_flags=%d size matches=%s", cur.ss_flags, yesno(cur.ss_size == altsz));
    sa.sa_flags = 0;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    out("without SA_ONSTACK: on alternate stack: %s", yesno(on_alt));
    stack_t small = {.ss_sp = alt, .ss_size = 512, .ss_flags = 0};
    check("too small", sigaltstack(&small, NULL));
    stack_t badf = {.ss_sp = alt, .ss_size = altsz, .ss_flags = 0x1234};
    check("bad flags", sigaltstack(&badf, NULL));
    stack_t dis = {.ss_flags = SS_DISABLE};
    check("disable", sigaltstack(&dis, NULL));
    sigaltstack(NULL, &cur);
    out("disabled: %s", yesno(cur.ss_flags & SS_DISABLE));

    pid_t pid = fork();
    if (pid == 0) {
        stack_t s2 = {.ss_sp = alt, .ss_size = altsz, .ss_flags = 0};
        sigaltstack(&s2, NULL);
        struct sigaction sv;
        memset(&sv, 0, sizeof sv);
        sv.sa_handler = overflow_handler;
        sv.sa_flags = SA_ONSTACK;
        sigaction(SIGSEGV, &sv, NULL);
        recurse(0);
        _exit(1);
    }
    reap("overflowing child", pid);
    pid = fork();
    if (pid == 0) {
        struct sigaction sv;
        memset(&sv, 0, sizeof sv);
        sv.sa_handler = overflow_handler;
        sigaction(SIGSEGV, &sv, NULL);
        recurse(0);
        _exit(1);
    }
    reap("overflow without an alternate stack", pid);
    return 0;
}
