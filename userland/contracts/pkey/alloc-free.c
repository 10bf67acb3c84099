/* pkey_alloc and pkey_free: the argument checks (EINVAL for flags, for
 * rights beyond PKEY_DISABLE_ACCESS|PKEY_DISABLE_WRITE, for freeing a key
 * not in use or out of range), keys 1..15 handed out lowest first with
 * key 0 in use from the start, ENOSPC after 15, a freed key handed out
 * again, and the caller's PKRU bits set to the rights asked for (left as
 * they are by pkey_free). The PKRU a program starts with denies every key
 * but 0. Freeing key 0 is allowed and the next pkey_alloc returns it. */
#include "pkeys.h"

int main(void)
{
    int pku = ospke();
    out("ospke: %s", yesno(pku));
    show("alloc flags=1", sys_pkey_alloc(1, 0));
    show("alloc rights=4", sys_pkey_alloc(0, 4));
    show("alloc rights=-1", sys_pkey_alloc(0, ~0UL));
    show("free -1", sys_pkey_free(-1));
    show("free 16", sys_pkey_free(16));
    show("free 1 (not allocated)", sys_pkey_free(1));
    show("free 0x100000001", sys_pkey_free(0x100000001L));
    if (!pku) {
        show("alloc without keys", sys_pkey_alloc(0, 0));
        return 0;
    }
    out("pkru at start: %#x", rdpkru());
    long k = show("alloc", sys_pkey_alloc(0, 0));
    out("bits of the new key: %u", key_bits(rdpkru(), (int)k));
    show("free it", sys_pkey_free(k));
    show("free it again", sys_pkey_free(k));
    out("bits after free: %u", key_bits(rdpkru(), (int)k));
    long keys[16];
    int n = 0;
    for (;;) {
        long r = sys_pkey_alloc(0, n % 3);
        if (r < 0) {
            out("alloc #%d: %s", n + 1, errname(errno));
            break;
        }
        keys[n++] = r;
        if (n == 16)
            break;
    }
    out("allocated: %d", n);
    for (int i = 0; i < n; i++)
        out("key %ld rights asked %d bits %u", keys[i], i % 3, key_bits(rdpkru(), (int)keys[i]));
    show("free 7", sys_pkey_free(7));
    show("alloc after freeing 7", sys_pkey_alloc(0, PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE));
    out("bits of key 7: %u", key_bits(rdpkru(), 7));
    show("alloc when full", sys_pkey_alloc(0, 0));
    show("free 0", sys_pkey_free(0));
    show("free 0 again", sys_pkey_free(0));
    show("alloc after freeing 0", sys_pkey_alloc(0, 0));
    return 0;
}
