/* io_setup maps the completion ring (struct aio_ring) in the caller's
 * memory and returns its address as the context: magic, features and
 * header length as Linux sets them, head and tail at 0, at least the
 * events asked for; /proc/self/maps names it /[aio]; io_destroy unmaps it. */
#include "aio.h"
#include "../fault.h"

static int maps_has_aio(unsigned long addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long start = strtoul(line, NULL, 16);
        if (start == addr && strstr(line, "/[aio] (deleted)") && strstr(line, "rw-s"))
            found = 1;
    }
    if (f)
        fclose(f);
    return found;
}

int main(void)
{
    aio_context_t ctx = 0, ctx2 = 0;
    check("io_setup 16", io_setup(16, &ctx));
    struct aio_ring *ring = (struct aio_ring *)ctx;
    out("page aligned: %s", yesno((ctx & 4095) == 0));
    out("magic: %#x", ring->magic);
    out("compat_features: %u incompat_features: %u header_length: %u", ring->compat_features, ring->incompat_features, ring->header_length);
    out("id: %u head: %u tail: %u", ring->id, ring->head, ring->tail);
    out("nr >= 16: %s", yesno(ring->nr >= 16));
    out("maps names it /[aio]: %s", yesno(maps_has_aio(ctx)));
    check("second io_setup", io_setup(16, &ctx2));
    out("second id: %u", ((struct aio_ring *)ctx2)->id);
    out("different: %s", yesno(ctx != ctx2));
    check("io_destroy", io_destroy(ctx));
    out("maps after destroy: %s", yesno(maps_has_aio(ctx)));
    out("touch after destroy: %s", try_read((char *)ctx));
    check("io_destroy second", io_destroy(ctx2));
    return 0;
}
