/* A small shared library for the glibc area's tests: thread-local storage
 * in a shared object (the tls test links with it; the dlopen test loads it
 * at run time, which takes glibc's dynamic TLS path), constructors and
 * destructors run by the loader, and plain functions to call through dlsym.
 */
#include <string.h>
#include <unistd.h>

__thread int kv_tls = 7;          /* initialized TLS (.tdata) */
__thread char kv_tls_buf[64];     /* zeroed TLS (.tbss) */
int kv_counter;

static void say(const char *s)
{
    if (write(1, s, strlen(s)) < 0)
        _exit(99);
}

__attribute__((constructor)) static void kv_init(void)
{
    kv_counter = 100;
    say("libkvtest: constructor\n");
}

__attribute__((destructor)) static void kv_fini(void)
{
    say("libkvtest: destructor\n");
}

int kv_add(int a, int b) { return a + b + kv_counter - 100; }

int *kv_tls_addr(void) { return &kv_tls; }

int kv_tls_bump(int by)
{
    kv_tls += by;
    kv_tls_buf[0]++;
    return kv_tls * 1000 + kv_tls_buf[0];
}
