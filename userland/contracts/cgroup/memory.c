/* The memory controller: memory.current counts what the members touch,
 * the limit files and how they parse (bytes rounded down to pages,
 * suffixes, "max"), memory.stat's fields, and memory.max enforced by
 * killing inside the cgroup. */
#include "cg.h"
#include <sys/mman.h>

#define A CG "/t-memory"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    cg_try("root +memory", CG "/cgroup.subtree_control", "+memory");
    for (const char *f = "memory.min\0memory.low\0memory.high\0memory.max\0memory.swap.max\0memory.oom.group\0memory.swap.current\0"; *f; f += strlen(f) + 1) {
        char path[128];
        snprintf(path, sizeof path, A "/%s", f);
        cg_show(f, path);
    }
    cg_show("memory.current empty", A "/memory.current");
    cg_show("memory.events", A "/memory.events");
    cg_try("max 1000 bytes", A "/memory.max", "1000");
    cg_show("memory.max", A "/memory.max");
    cg_try("max 10M", A "/memory.max", "10M");
    cg_show("memory.max", A "/memory.max");
    cg_try("max 0x10000", A "/memory.max", "0x10000");
    cg_show("memory.max", A "/memory.max");
    cg_try("max 1G with spaces", A "/memory.max", " 1G\n");
    cg_show("memory.max", A "/memory.max");
    cg_try("max junk", A "/memory.max", "12q");
    cg_try("max negative", A "/memory.max", "-1");
    cg_try("max max", A "/memory.max", "max");
    cg_try("high 64M", A "/memory.high", "64M");
    cg_try("low 4k", A "/memory.low", "4k");
    cg_try("min 8192", A "/memory.min", "8192");
    cg_try("swap.max 0", A "/memory.swap.max", "0");
    cg_try("oom.group 2", A "/memory.oom.group", "2");
    cg_try("oom.group 1", A "/memory.oom.group", "1");
    cg_show("high", A "/memory.high");
    cg_show("low", A "/memory.low");
    cg_show("min", A "/memory.min");
    cg_show("swap.max", A "/memory.swap.max");
    cg_try("oom.group 0", A "/memory.oom.group", "0");
    for (const char *k = "anon\0file\0kernel_stack\0shmem\0file_mapped\0pgfault\0"; *k; k += strlen(k) + 1)
        out("memory.stat has %s: %s", k, yesno(cg_key(A "/memory.stat", k) >= 0));
    /* 16 MiB touched by a member shows in memory.current. */
    int ready[2], go[2];
    pipe(ready);
    pipe(go);
    pid_t child = fork();
    if (child == 0) {
        char c;
        read(go[0], &c, 1);
        char *p = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        memset(p, 1, 16 << 20);
        write(ready[1], "r", 1);
        for (;;)
            pause();
    }
    cg_move(A, child);
    long long before = cg_num(A "/memory.current");
    write(go[1], "g", 1);
    char c;
    read(ready[0], &c, 1);
    long long after = cg_num(A "/memory.current");
    out("memory.current grew by 16 MiB or more: %s", yesno(after - before >= 16 << 20));
    out("memory.stat anon 16 MiB or more: %s", yesno(cg_key(A "/memory.stat", "anon") >= 16 << 20));
    cg_end(child);
    /* A member going past memory.max is killed. */
    cg_try("max 32M", A "/memory.max", "32M");
    child = fork();
    if (child == 0) {
        cg_move(A, 0);
        char *p = mmap(NULL, 128 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (long i = 0; i < 128 << 20; i += 4096)
            p[i] = 1;
        _exit(0);
    }
    reap("hog over memory.max", child);
    out("memory.events oom_kill counted: %s", yesno(cg_key(A "/memory.events", "oom_kill") >= 1));
    rmdir(A);
    cg_try("root -memory", CG "/cgroup.subtree_control", "-memory");
    cg_umount();
    return 0;
}
