/* io_setup and io_destroy refuse what Linux refuses: no events, a context
 * word that is not zero, a bad pointer, more events than aio-max-nr
 * (EAGAIN) or than the ring can hold (EINVAL); io_destroy of an unknown
 * or already destroyed context. */
#include "aio.h"

int main(void)
{
    aio_context_t ctx = 0;
    check("io_setup 0 events", io_setup(0, &ctx));
    ctx = 1;
    check("io_setup with *ctxp != 0", io_setup(4, &ctx));
    check("io_setup bad pointer", io_setup(4, (aio_context_t *)8));
    ctx = 0;
    check("io_setup past aio-max-nr", io_setup(65537, &ctx));
    check("io_setup too large for a ring", io_setup(5000000, &ctx));
    check("io_setup 0xffffffff", io_setup(0xffffffffu, &ctx));
    out("ctx still 0: %s", yesno(ctx == 0));
    check("io_destroy 0", io_destroy(0));
    check("io_destroy unknown", io_destroy(0x12345000));
    check("io_setup 1", io_setup(1, &ctx));
    out("ctx set: %s", yesno(ctx != 0));
    check("io_destroy", io_destroy(ctx));
    check("io_destroy again", io_destroy(ctx));
    return 0;
}
