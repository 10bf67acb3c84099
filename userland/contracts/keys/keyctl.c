/* Kernel keys: add_key, request_key (no upcall: ENOKEY) and keyctl with
 * the user, logon and keyring types, the thread, process, session, user
 * and user-session keyrings, permissions, possession through the
 * session keyring across fork, revocation and invalidation. Serials are
 * random: only their relations are printed. */
#include "../common.h"

#define KEY_SPEC_THREAD_KEYRING -1
#define KEY_SPEC_PROCESS_KEYRING -2
#define KEY_SPEC_SESSION_KEYRING -3
#define KEY_SPEC_USER_KEYRING -4
#define KEY_SPEC_USER_SESSION_KEYRING -5
#define KEY_SPEC_GROUP_KEYRING -6
#define KEY_SPEC_REQKEY_AUTH_KEY -7

static long add_key(const char *type, const char *desc, const void *p, size_t n, long ring)
{
    return syscall(SYS_add_key, type, desc, p, n, ring);
}

static long request_key(const char *type, const char *desc, const char *callout, long dest)
{
    return syscall(SYS_request_key, type, desc, callout, dest);
}

static long kc(long op, long a, long b, long c, long d)
{
    return syscall(SYS_keyctl, op, a, b, c, d);
}

static void describe(const char *label, long id)
{
    char buf[256];
    memset(buf, 0, sizeof buf);
    long n = kc(6, id, (long)buf, sizeof buf, 0);
    if (n < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %ld '%s'", label, n, buf);
}

static void readkey(const char *label, long id, size_t len)
{
    char buf[64];
    memset(buf, 0, sizeof buf);
    long n = kc(11, id, (long)buf, len, 0);
    if (n < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %ld '%.*s'", label, n, (int)(n < (long)len ? n : (long)len), buf);
}

int main(void)
{
    /* The special keyrings. */
    check("thread keyring, no create", kc(0, KEY_SPEC_THREAD_KEYRING, 0, 0, 0));
    long t = kc(0, KEY_SPEC_THREAD_KEYRING, 1, 0, 0);
    check("thread keyring, create", t);
    out("thread keyring again: %s", yesno(kc(0, KEY_SPEC_THREAD_KEYRING, 0, 0, 0) == t));
    check("process keyring, no create", kc(0, KEY_SPEC_PROCESS_KEYRING, 0, 0, 0));
    long p = kc(0, KEY_SPEC_PROCESS_KEYRING, 1, 0, 0);
    check("process keyring, create", p);
    long us = kc(0, KEY_SPEC_USER_SESSION_KEYRING, 0, 0, 0);
    long u = kc(0, KEY_SPEC_USER_KEYRING, 0, 0, 0);
    long s = kc(0, KEY_SPEC_SESSION_KEYRING, 0, 0, 0);
    out("session is user-session: %s", yesno(s == us));
    check("group keyring", kc(0, KEY_SPEC_GROUP_KEYRING, 1, 0, 0));
    check("reqkey auth", kc(0, KEY_SPEC_REQKEY_AUTH_KEY, 0, 0, 0));
    check("id 0", kc(0, 0, 0, 0, 0));
    check("id -9", kc(0, -9, 0, 0, 0));
    check("id 2", kc(0, 2, 0, 0, 0));
    describe("describe @t", t);
    describe("describe @p", p);
    describe("describe @u", u);
    describe("describe @us", us);
    char small[4];
    out("describe size only: %ld", kc(6, u, 0, 0, 0));
    out("describe small buffer: %ld", kc(6, u, (long)small, sizeof small, 0));
    long ul[4];
    memset(ul, 0, sizeof ul);
    long n = kc(11, us, (long)ul, sizeof ul, 0);
    out("read @us: %ld, holds @u: %s", n, yesno(n == 4 && (int)ul[0] == (int)u));

    /* user keys. */
    long k = add_key("user", "test:a", "hello", 5, KEY_SPEC_THREAD_KEYRING);
    check("add user", k);
    describe("describe user", k);
    readkey("read", k, 32);
    readkey("read short", k, 3);
    out("read size only: %ld", kc(11, k, 0, 0, 0));
    long k2 = add_key("user", "test:a", "world", 5, KEY_SPEC_THREAD_KEYRING);
    out("same description updates: %s", yesno(k2 == k));
    readkey("read updated", k, 32);
    check("update", kc(2, k, (long)"again", 5, 0));
    readkey("read after update", k, 32);
    check("update empty", kc(2, k, (long)"", 0, 0));
    check("update a keyring", kc(2, t, (long)"x", 1, 0));
    check("update too long", kc(2, k, (long)"x", 4097, 0));

    /* add_key's errors. */
    check("unknown type", add_key("nosuch", "d", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("internal type", add_key(".request_key_auth", "d", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("empty type", add_key("", "d", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("long type", add_key("0123456789012345678901234567890123456789", "d", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("empty payload", add_key("user", "d", "", 0, KEY_SPEC_THREAD_KEYRING));
    check("empty description", add_key("user", "", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("keyring with payload", add_key("keyring", "r", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("dot keyring", add_key("keyring", ".r", NULL, 0, KEY_SPEC_THREAD_KEYRING));
    check("into a user key", add_key("user", "d", "x", 1, k));
    check("into id 0", add_key("user", "d", "x", 1, 0));
    check("payload too big", add_key("user", "d", "x", 1024 * 1024, KEY_SPEC_THREAD_KEYRING));
    check("bad payload pointer", add_key("user", "d", (void *)8, 4, KEY_SPEC_THREAD_KEYRING));
    check("bad type pointer", add_key((char *)8, "d", "x", 1, KEY_SPEC_THREAD_KEYRING));

    /* logon keys: "service:name", never read back. */
    check("logon without colon", add_key("logon", "plain", "x", 1, KEY_SPEC_THREAD_KEYRING));
    check("logon leading colon", add_key("logon", ":x", "x", 1, KEY_SPEC_THREAD_KEYRING));
    long lk = add_key("logon", "svc:x", "secret", 6, KEY_SPEC_THREAD_KEYRING);
    check("logon", lk);
    describe("describe logon", lk);
    readkey("read logon", lk, 32);

    /* Keyrings: link, search, read, unlink, clear, cycles. */
    long r = add_key("keyring", "ring1", NULL, 0, KEY_SPEC_THREAD_KEYRING);
    check("add keyring", r);
    describe("describe keyring", r);
    check("link", kc(8, k, r, 0, 0));
    int ids[4] = {0};
    n = kc(11, r, (long)ids, sizeof ids, 0);
    out("read keyring: %ld, holds the key: %s", n, yesno(n == 4 && ids[0] == k));
    out("search: %s", yesno(kc(10, KEY_SPEC_THREAD_KEYRING, (long)"user", (long)"test:a", 0) == k));
    out("search nested: %s", yesno(kc(10, r, (long)"user", (long)"test:a", 0) == k));
    check("search missing", kc(10, r, (long)"user", (long)"nope", 0));
    check("search unknown type", kc(10, r, (long)"nosuch", (long)"nope", 0));
    check("search a user key", kc(10, k, (long)"user", (long)"test:a", 0));
    check("link into itself", kc(8, r, r, 0, 0));
    check("link @t into its child", kc(8, t, r, 0, 0));
    check("link into a user key", kc(8, k, k, 0, 0));
    check("unlink", kc(9, k, r, 0, 0));
    check("unlink again", kc(9, k, r, 0, 0));
    check("unlink from a user key", kc(9, k, k, 0, 0));
    kc(8, k, r, 0, 0);
    check("clear", kc(7, r, 0, 0, 0));
    out("read cleared: %ld", kc(11, r, 0, 0, 0));
    check("clear a user key", kc(7, k, 0, 0, 0));

    /* request_key: no upcall. */
    out("request_key finds: %s", yesno(request_key("user", "test:a", NULL, 0) == k));
    check("request_key missing", request_key("user", "test:none", NULL, 0));
    check("request_key missing with callout", request_key("user", "test:none", "info", 0));
    check("request_key unknown type", request_key("nosuch", "x", NULL, 0));
    out("request_key into a keyring: %s", yesno(request_key("user", "test:a", NULL, r) == k));
    n = kc(11, r, (long)ids, sizeof ids, 0);
    out("linked by request_key: %s", yesno(n == 4 && ids[0] == k));
    check("instantiate", kc(12, k, (long)"x", 1, 0));
    check("negate", kc(13, k, 10, 0, 0));

    /* Attributes. */
    check("setperm", kc(5, k, 0x3f010000, 0, 0));
    check("setperm bad bits", kc(5, k, 0x40, 0, 0));
    check("setperm pos view only", kc(5, k, 0x01000000, 0, 0));
    readkey("read without read permission", k, 32);
    check("setperm without setattr", kc(5, k, 0x3f010000, 0, 0));
    long k3 = add_key("user", "test:c", "c", 1, KEY_SPEC_THREAD_KEYRING);
    check("chown", kc(4, k3, 1000, 1000, 0));
    describe("describe chowned", k3);
    check("set timeout", kc(15, k3, 100, 0, 0));
    check("set timeout 0", kc(15, k3, 0, 0, 0));
    check("reqkey keyring no change", kc(14, -1, 0, 0, 0));
    out("reqkey set session: %ld", kc(14, 3, 0, 0, 0));
    out("reqkey no change: %ld", kc(14, -1, 0, 0, 0));
    out("reqkey set default: %ld", kc(14, 0, 0, 0, 0));
    check("reqkey group", kc(14, 6, 0, 0, 0));
    check("reqkey 8", kc(14, 8, 0, 0, 0));
    check("unknown op", kc(1000, 0, 0, 0, 0));
    long per = kc(22, -1, KEY_SPEC_THREAD_KEYRING, 0, 0);
    check("get persistent", per);
    describe("describe persistent", per);
    out("persistent again: %s", yesno(kc(22, 0, KEY_SPEC_PROCESS_KEYRING, 0, 0) == per));
    check("persistent into a user key", kc(22, -1, k, 0, 0));

    /* Revoke and invalidate. */
    long k4 = add_key("user", "test:d", "d", 1, KEY_SPEC_THREAD_KEYRING);
    check("revoke", kc(3, k4, 0, 0, 0));
    readkey("read revoked", k4, 32);
    describe("describe revoked", k4);
    check("revoke again", kc(3, k4, 0, 0, 0));
    check("search revoked", kc(10, KEY_SPEC_THREAD_KEYRING, (long)"user", (long)"test:d", 0));
    long k5 = add_key("user", "test:e", "e", 1, KEY_SPEC_THREAD_KEYRING);
    /* What a lookup of an invalidated key gives depends on whether
     * Linux's key collector has run yet: not printed. */
    check("invalidate", kc(21, k5, 0, 0, 0));

    /* Sessions. */
    long ns = kc(1, 0, 0, 0, 0);
    check("join anonymous session", ns);
    out("new session differs: %s", yesno(ns != us && kc(0, KEY_SPEC_SESSION_KEYRING, 0, 0, 0) == ns));
    describe("describe @s", ns);
    long named = kc(1, (long)"myses", 0, 0, 0);
    describe("describe named session", named);
    out("join by name again: %s", yesno(kc(1, (long)"myses", 0, 0, 0) == named));
    long sk = add_key("user", "test:s", "shared", 6, KEY_SPEC_SESSION_KEYRING);
    pid_t pid = fork();
    if (pid == 0) {
        out("child session inherited: %s", yesno(kc(0, KEY_SPEC_SESSION_KEYRING, 0, 0, 0) == named));
        check("child thread keyring", kc(0, KEY_SPEC_THREAD_KEYRING, 0, 0, 0));
        check("child process keyring", kc(0, KEY_SPEC_PROCESS_KEYRING, 0, 0, 0));
        readkey("child reads session key", sk, 32);
        check("child reads parent's thread key", kc(11, k, 0, 0, 0));
        setgid(1000);
        setuid(1000);
        readkey("uid 1000 reads session key", sk, 32);
        describe("uid 1000 @u", KEY_SPEC_USER_KEYRING);
        check("uid 1000 describes root's @u", kc(6, u, 0, 0, 0));
        check("uid 1000 chown", kc(4, kc(0, KEY_SPEC_USER_KEYRING, 0, 0, 0), 0, -1, 0));
        check("uid 1000 root's persistent", kc(22, 0, KEY_SPEC_USER_KEYRING, 0, 0));
        check("uid 1000 own persistent", kc(22, -1, KEY_SPEC_USER_KEYRING, 0, 0));
        _exit(0);
    }
    reap("child", pid);
    return 0;
}
