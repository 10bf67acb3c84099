/* The dynamic loader at run time: dlopen of a system library by soname
 * (libm.so.6, found in the default directories) and of the area's own
 * library by path (its constructor runs at dlopen, its destructor at
 * dlclose, its TLS is allocated dynamically per thread), dlsym,
 * RTLD_DEFAULT/RTLD_NEXT lookups, dladdr, RTLD_NOLOAD, and dlerror's
 * messages for a missing library and a missing symbol. */
#include "common.h"
#include <dlfcn.h>
#include <pthread.h>

static int (*bump)(int);

static void *in_thread(void *arg)
{
    (void)arg;
    return (void *)(long)bump(5); /* this thread's copy starts at 7 */
}

int main(void)
{
    void *m = dlopen("libm.so.6", RTLD_NOW);
    out("dlopen libm.so.6: %s", m ? "ok" : dlerror());
    double (*cosp)(double) = (double (*)(double))dlsym(m, "cos");
    double (*sqrtp)(double) = (double (*)(double))dlsym(m, "sqrt");
    double (*powp)(double, double) = (double (*)(double, double))dlsym(m, "pow");
    out("cos(0) %.3f sqrt(2) %.6f pow(2,10) %.0f", cosp(0.0), sqrtp(2.0), powp(2, 10));
    void *again = dlopen("libm.so.6", RTLD_NOW | RTLD_NOLOAD);
    out("RTLD_NOLOAD finds it loaded: %s, same handle: %s", again ? "yes" : "no", again == m ? "yes" : "no");
    Dl_info info;
    if (dladdr((void *)cosp, &info))
        out("dladdr(cos): file %s, symbol %s", info.dli_fname, info.dli_sname);
    out("dlclose: %d %d", dlclose(again), dlclose(m));

    out("RTLD_NOLOAD of a library not loaded: %s", dlopen("/contracts/glibc/lib/libkvtest.so", RTLD_NOW | RTLD_NOLOAD) ? "loaded" : "NULL");
    out("before dlopen");
    void *kv = dlopen("/contracts/glibc/lib/libkvtest.so", RTLD_LAZY);
    out("after dlopen: %s", kv ? "ok" : dlerror());
    int (*add)(int, int) = (int (*)(int, int))dlsym(kv, "kv_add");
    int *counter = dlsym(kv, "kv_counter");
    bump = (int (*)(int))dlsym(kv, "kv_tls_bump");
    out("kv_add(2,3) %d, kv_counter %d", add(2, 3), *counter);
    int first = bump(1);
    out("bump in main: %d then %d", first, bump(1));
    pthread_t t;
    void *ret;
    pthread_create(&t, NULL, in_thread, NULL);
    pthread_join(t, &ret);
    out("bump in a new thread: %ld", (long)ret);
    out("bump in main again: %d", bump(1));
    out("RTLD_DEFAULT finds kv_add: %s", dlsym(RTLD_DEFAULT, "kv_add") ? "yes" : "no (local)");
    out("RTLD_DEFAULT finds printf: %s", dlsym(RTLD_DEFAULT, "printf") ? "yes" : "no");
    out("RTLD_NEXT finds malloc: %s", dlsym(RTLD_NEXT, "malloc") ? "yes" : "no");
    out("dlclose: %d", dlclose(kv));
    out("after dlclose");

    dlerror();
    out("dlopen missing: %s", dlopen("libnonexistent.so.9", RTLD_NOW) ? "ok" : dlerror());
    out("dlerror cleared: %s", dlerror() ? "no" : "yes");
    m = dlopen("libm.so.6", RTLD_NOW);
    out("dlsym missing: %s", dlsym(m, "no_such_symbol") ? "found" : dlerror());
    dlclose(m);
    out("dlopen a non-ELF file: %s", dlopen("/etc/passwd", RTLD_NOW) ? "ok" : dlerror());
    return 0;
}
