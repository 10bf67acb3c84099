/* glibc's malloc over brk and mmap: small and large allocations, realloc
 * growing in place and moving, calloc zeroing (also of reused memory),
 * aligned allocations, the mmap threshold (M_MMAP_THRESHOLD), trimming,
 * and many threads allocating at once (arenas built with mmap). */
#include "common.h"
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

static unsigned sum(const unsigned char *p, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++)
        s = s * 31 + p[i];
    return s;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    unsigned long ok = 1;
    for (int round = 0; round < 200; round++) {
        void *ps[32];
        for (int i = 0; i < 32; i++) {
            size_t n = 16 + (size_t)((i * 97 + round * 13 + id) % 3000);
            ps[i] = malloc(n);
            if (!ps[i]) { ok = 0; break; }
            memset(ps[i], (int)(id + i), n);
        }
        for (int i = 0; i < 32; i++) {
            if (ps[i] && ((unsigned char *)ps[i])[0] != (unsigned char)(id + i))
                ok = 0;
            free(ps[i]);
        }
    }
    void *big = malloc(1 << 20);
    if (!big) ok = 0;
    else memset(big, 1, 1 << 20);
    free(big);
    return (void *)ok;
}

int main(void)
{
    /* Small allocations from the heap (brk). */
    void *before = sbrk(0);
    char *small[1000];
    for (int i = 0; i < 1000; i++) {
        small[i] = malloc(i + 1);
        memset(small[i], i & 0xff, i + 1);
    }
    int good = 1;
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j <= i; j++)
            if ((unsigned char)small[i][j] != (i & 0xff))
                good = 0;
    out("1000 small blocks intact: %s", good ? "yes" : "no");
    out("heap grew: %s", sbrk(0) > before ? "yes" : "no");
    for (int i = 0; i < 1000; i += 2)
        free(small[i]);
    for (int i = 1; i < 1000; i += 2)
        free(small[i]);

    /* Realloc keeps contents while growing and shrinking. */
    unsigned char *r = malloc(10);
    for (int i = 0; i < 10; i++)
        r[i] = i;
    unsigned s0 = sum(r, 10);
    for (size_t n = 20; n <= (8u << 20); n *= 3) {
        r = realloc(r, n);
        if (!r) { out("realloc %zu failed", n); return 1; }
    }
    out("realloc grew to large keeping data: %s", sum(r, 10) == s0 ? "yes" : "no");
    r = realloc(r, 5);
    out("realloc shrank keeping data: %s", sum(r, 5) == sum((unsigned char[]){0, 1, 2, 3, 4}, 5) ? "yes" : "no");
    free(r);

    /* Large allocations are mmapped: usable at once, given back on free. */
    size_t big = 64u << 20;
    char *b = malloc(big);
    out("64 MiB malloc: %s", b ? "ok" : "NULL");
    b[0] = 1; b[big / 2] = 2; b[big - 1] = 3;
    out("touched ends: %d %d %d", b[0], b[big / 2], b[big - 1]);
    out("malloc_usable_size >= request: %s", malloc_usable_size(b) >= big ? "yes" : "no");
    free(b);

    char *z = calloc(1 << 20, 4);
    good = 1;
    for (size_t i = 0; i < (4u << 20); i += 4096)
        if (z[i]) good = 0;
    out("calloc 4 MiB zeroed: %s", good ? "yes" : "no");
    memset(z, 0xaa, 4u << 20);
    free(z);
    z = calloc(1000, 100);
    good = 1;
    for (int i = 0; i < 100000; i++)
        if (z[i]) good = 0;
    out("calloc after reuse zeroed: %s", good ? "yes" : "no");
    free(z);

    /* The mmap threshold: below it from the heap, above it mmapped. */
    out("mallopt M_MMAP_THRESHOLD: %d", mallopt(M_MMAP_THRESHOLD, 256 * 1024));
    void *h0 = sbrk(0);
    char *under = malloc(200 * 1024);
    char *over = malloc(300 * 1024);
    out("200 KiB from the heap: %s", (void *)under < sbrk(0) && (void *)under >= before ? "yes" : "no");
    out("300 KiB outside the heap: %s", (void *)over >= sbrk(0) || (void *)over < before ? "yes" : "no");
    (void)h0;
    free(under);
    free(over);
    out("malloc_trim: returns %s", malloc_trim(0) >= 0 ? "ok" : "?");

    /* Aligned allocations. */
    void *a = NULL;
    for (size_t al = 16; al <= 65536; al *= 16) {
        int rc = posix_memalign(&a, al, 1000);
        out("posix_memalign %zu: rc %d aligned %s", al, rc, ((uintptr_t)a % al) == 0 ? "yes" : "no");
        free(a);
    }
    out("posix_memalign 3: rc %s", errname(posix_memalign(&a, 3, 10)));
    void *al = aligned_alloc(4096, 8192);
    out("aligned_alloc 4096: %s", ((uintptr_t)al & 4095) == 0 ? "yes" : "no");
    free(al);
    errno = 0;
    void *huge = malloc((size_t)1 << 62);
    out("malloc 2^62: %s %s", huge ? "ok" : "NULL", errname(errno));

    /* Threads allocate in their own arenas. */
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    int allok = 1;
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        if (!ret) allok = 0;
    }
    out("4 threads x 6400 allocations: %s", allok ? "ok" : "bad");
    return 0;
}
