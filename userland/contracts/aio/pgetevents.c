/* io_pgetevents: the signal mask of struct __aio_sigset holds during the
 * wait (a signal it blocks stays pending, the wait times out; one it
 * unblocks ends the wait with EINTR and its handler runs); a sigsetsize
 * other than 8 is EINVAL, a bad pointer EFAULT; a null set is
 * io_getevents. */
#include "aio.h"

static volatile int caught;
static void on_usr1(int s) { (void)s; caught++; }

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup", io_setup(8, &ctx));
    struct sigaction sa = { .sa_handler = on_usr1 };
    sigaction(SIGUSR1, &sa, NULL);
    struct io_event ev;
    struct timespec zero = { 0, 0 };
    sigset_t block, none, old;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigemptyset(&none);
    struct aio_sigset bad = { &block, 4 };
    show("sigsetsize 4", io_pgetevents(ctx, 0, 1, &ev, &zero, &bad));
    show("bad __aio_sigset pointer", io_pgetevents(ctx, 0, 1, &ev, &zero, (struct aio_sigset *)8));
    struct aio_sigset badmask = { (sigset_t *)8, 8 };
    show("bad mask pointer", io_pgetevents(ctx, 0, 1, &ev, &zero, &badmask));
    show("null set", io_pgetevents(ctx, 0, 1, &ev, &zero, NULL));

    // A pending SIGUSR1, blocked by the mask: the wait times out.
    sigprocmask(SIG_BLOCK, &block, &old);
    kill(getpid(), SIGUSR1);
    struct aio_sigset keep = { &block, 8 };
    struct timespec t = { 0, 100 * 1000000 };
    show("blocked by the mask", io_pgetevents(ctx, 1, 1, &ev, &t, &keep));
    out("handler ran: %d", caught);
    // The mask unblocks it: EINTR, the handler runs, the old mask is back.
    struct aio_sigset open_ = { &none, 8 };
    show("unblocked by the mask", io_pgetevents(ctx, 1, 1, &ev, &t, &open_));
    out("handler ran: %d", caught);
    sigset_t now;
    sigprocmask(SIG_SETMASK, NULL, &now);
    out("SIGUSR1 blocked again: %s", yesno(sigismember(&now, SIGUSR1)));
    check("io_destroy", io_destroy(ctx));
    return 0;
}
