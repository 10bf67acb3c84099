/* Thread-local storage with glibc: __thread variables in the program
 * (initialized and zeroed) and in a shared library it links with (static
 * TLS, reached through the DTV and %fs), each thread seeing its own copy
 * with its initial value; the addresses differ between threads; errno is
 * per thread too. */
#include "common.h"
#include <pthread.h>

extern __thread int kv_tls;
extern __thread char kv_tls_buf[64];
int *kv_tls_addr(void);
int kv_tls_bump(int by);

__thread long prog_tls = 1234;
__thread char prog_zero[100];

static void *worker(void *arg)
{
    long id = (long)arg;
    long r = 0;
    r |= prog_tls == 1234;
    r |= (prog_zero[99] == 0) << 1;
    r |= (kv_tls == 7) << 2;
    r |= (kv_tls_buf[0] == 0) << 3;
    prog_tls = id;
    kv_tls = (int)id * 2;
    errno = (int)id + 100;
    usleep(20000);
    r |= (prog_tls == id) << 4;
    r |= (kv_tls == id * 2) << 5;
    r |= (*kv_tls_addr() == id * 2) << 6;
    r |= (errno == id + 100) << 7;
    r |= (kv_tls_addr() != (int *)arg) << 8;
    return (void *)r;
}

int main(void)
{
    out("main: prog_tls %ld, kv_tls %d, kv_tls_addr is &kv_tls: %s", prog_tls, kv_tls,
        kv_tls_addr() == &kv_tls ? "yes" : "no");
    prog_tls = 99;
    kv_tls = 55;
    out("bump in main: %d", kv_tls_bump(1));
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        out("thread %d: flags %#lx", i + 1, (long)ret);
    }
    out("main after threads: prog_tls %ld, kv_tls %d, bump %d", prog_tls, kv_tls, kv_tls_bump(1));
    return 0;
}
