/* What protection keys processes and threads share: fork copies the keys
 * in use and the caller's PKRU (the child's pkey_free and pkey_alloc do
 * not touch the parent's keys; its pages keep their keys); execve starts
 * over (default PKRU, only key 0 in use); a thread starts with its
 * creator's PKRU and then has its own: WRPKRU and pkey_alloc's rights in
 * one thread leave the other's PKRU alone, and each thread's accesses to
 * the same page obey its own rights. */
#include "pkeys.h"
#include <pthread.h>
#include <sys/mman.h>

static const char *try_write(volatile char *p)
{
    static __thread char buf[64];
    char v = 5;
    if (!faults(p, 1, &v))
        return "ok";
    snprintf(buf, sizeof buf, "%s pkey=%u", pkey_fault_code_name(), pkey_fault_pkey);
    return buf;
}

static char *page;
static long k1;
static pthread_barrier_t step;

static void *thread_main(void *arg)
{
    (void)arg;
    out("thread: bits of k1 at start: %u", key_bits(rdpkru(), (int)k1));
    wrpkru(rdpkru() & ~(3u << (2 * k1)));
    out("thread: bits of k1 after its WRPKRU: %u", key_bits(rdpkru(), (int)k1));
    pthread_barrier_wait(&step); /* 1: main looks at its own */
    pthread_barrier_wait(&step); /* 2: main changed its own */
    out("thread: bits of k1 after main's change: %u", key_bits(rdpkru(), (int)k1));
    out("thread: write: %s", try_write(page));
    long k = show("thread: alloc write-disabled", sys_pkey_alloc(0, PKEY_DISABLE_WRITE));
    out("thread: bits of its key: %u", key_bits(rdpkru(), (int)k));
    pthread_barrier_wait(&step); /* 3 */
    pthread_barrier_wait(&step); /* 4: main looked */
    return (void *)k;
}

int main(int argc, char **argv)
{
    require_ospke();
    if (argc > 1) {
        out("exec: pkru %#x", rdpkru());
        show("exec: free 1", sys_pkey_free(1));
        show("exec: alloc", sys_pkey_alloc(0, 0));
        return 0;
    }
    catch_faults();
    long pg = sysconf(_SC_PAGESIZE);
    page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    page[0] = 1;
    k1 = show("alloc write-disabled", sys_pkey_alloc(0, PKEY_DISABLE_WRITE));
    show("pkey_mprotect", sys_pkey_mprotect(page, pg, PROT_READ | PROT_WRITE, k1));
    out("write: %s", try_write(page));

    pid_t pid = fork();
    if (pid == 0) {
        out("child: bits of k1: %u", key_bits(rdpkru(), (int)k1));
        out("child: write: %s", try_write(page));
        show("child: free k1", sys_pkey_free(k1));
        show("child: alloc", sys_pkey_alloc(0, 0));
        show("child: alloc", sys_pkey_alloc(0, 0));
        _exit(0);
    }
    reap("child", pid);
    show("parent: alloc after the child's", sys_pkey_alloc(0, 0));
    show("parent: free k1", sys_pkey_free(k1));
    k1 = show("parent: alloc k1 again", sys_pkey_alloc(0, PKEY_DISABLE_WRITE));

    pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "inherit", "exec", (char *)NULL);
        out("execl: %s", errname(errno));
        _exit(1);
    }
    reap("exec child", pid);

    pthread_barrier_init(&step, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, thread_main, NULL);
    pthread_barrier_wait(&step); /* 1 */
    out("main: bits of k1 after the thread's WRPKRU: %u", key_bits(rdpkru(), (int)k1));
    wrpkru(rdpkru() | (1u << (2 * k1)));
    pthread_barrier_wait(&step); /* 2 */
    pthread_barrier_wait(&step); /* 3 */
    out("main: bits of k1: %u", key_bits(rdpkru(), (int)k1));
    out("main: write: %s", try_write(page));
    pthread_barrier_wait(&step); /* 4 */
    void *k;
    pthread_join(t, &k);
    out("main: bits of the thread's key: %u", key_bits(rdpkru(), (int)(long)k));
    return 0;
}
