/* File seals on a memfd: F_SEAL_SHRINK and F_SEAL_GROW on ftruncate and
 * write, F_SEAL_WRITE on write, pwrite and shared writable mappings (EBUSY
 * while one exists), F_SEAL_FUTURE_WRITE (existing mappings keep working,
 * new writable ones fail), F_SEAL_SEAL, unknown bits, the upper 32 bits,
 * and a read-only fd (EPERM). */
#include "common.h"
#include <sys/mman.h>

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x10
#endif

static int sealed(const char *name)
{
    int fd = syscall(SYS_memfd_create, name, MFD_ALLOW_SEALING);
    if (ftruncate(fd, 4096) < 0)
        out("ftruncate failed");
    return fd;
}

static void try_map(const char *label, int fd, int prot, int flags)
{
    void *p = mmap(NULL, 4096, prot, flags, fd, 0);
    out("%s: %s", label, p == MAP_FAILED ? errname(errno) : "ok");
    if (p != MAP_FAILED)
        munmap(p, 4096);
}

int main(void)
{
    int fd = sealed("shrink");
    check("add F_SEAL_SHRINK", fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK));
    show("seals", fcntl(fd, F_GET_SEALS));
    check("shrink", ftruncate(fd, 100));
    check("grow", ftruncate(fd, 8192));
    check("same size", ftruncate(fd, 8192));
    close(fd);

    fd = sealed("grow");
    check("add F_SEAL_GROW", fcntl(fd, F_ADD_SEALS, F_SEAL_GROW));
    check("grow", ftruncate(fd, 8192));
    check("shrink", ftruncate(fd, 100));
    show("write inside", pwrite(fd, "abc", 3, 10));
    show("write crossing the end", pwrite(fd, "abcdefgh", 8, 96));
    show("write past the end", pwrite(fd, "abc", 3, 200));
    struct stat st;
    fstat(fd, &st);
    out("size %ld", (long)st.st_size);
    close(fd);

    fd = sealed("write");
    void *keep = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    check("add F_SEAL_WRITE with a shared writable mapping", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
    munmap(keep, 4096);
    keep = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    check("add F_SEAL_WRITE with a private mapping", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
    munmap(keep, 4096);
    show("seals", fcntl(fd, F_GET_SEALS));
    show("write", write(fd, "x", 1));
    show("pwrite", pwrite(fd, "x", 1, 0));
    show("empty write", write(fd, "x", 0));
    try_map("mmap shared read-write", fd, PROT_READ | PROT_WRITE, MAP_SHARED);
    try_map("mmap shared read of a read-write fd", fd, PROT_READ, MAP_SHARED);
    {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        int rofd = open(path, O_RDONLY);
        try_map("mmap shared read of a read-only fd", rofd, PROT_READ, MAP_SHARED);
        close(rofd);
    }
    try_map("mmap private read-write", fd, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    try_map("mmap private read", fd, PROT_READ, MAP_PRIVATE);
    check("shrink (no F_SEAL_SHRINK)", ftruncate(fd, 100));
    check("grow (no F_SEAL_GROW)", ftruncate(fd, 9000));
    close(fd);

    fd = sealed("future");
    char *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    check("add F_SEAL_FUTURE_WRITE with a shared writable mapping", fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
    if (w != MAP_FAILED) {
        memcpy(w, "still", 5);
        char b[6] = {0};
        pread(fd, b, 5, 0);
        out("old mapping writes: %s", b);
        munmap(w, 4096);
    }
    show("write", write(fd, "x", 1));
    try_map("mmap shared read-write", fd, PROT_READ | PROT_WRITE, MAP_SHARED);
    try_map("mmap shared read", fd, PROT_READ, MAP_SHARED);
    try_map("mmap private read-write", fd, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    check("shrink", ftruncate(fd, 100));
    close(fd);

    fd = sealed("seal");
    check("unknown seal 0x40", fcntl(fd, F_ADD_SEALS, 0x40));
    long r = syscall(SYS_fcntl, fd, F_ADD_SEALS, 0x100000002UL);
    out("upper 32 bits: %s", r < 0 ? errname(errno) : "ok");
    check("add nothing", fcntl(fd, F_ADD_SEALS, 0));
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int ro = open(link, O_RDONLY);
    check("reopen read-only", ro);
    check("add through a read-only fd", fcntl(ro, F_ADD_SEALS, F_SEAL_GROW));
    check("add F_SEAL_SEAL|F_SEAL_SHRINK", fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK));
    show("seals through the other fd", fcntl(ro, F_GET_SEALS));
    check("add after F_SEAL_SEAL", fcntl(fd, F_ADD_SEALS, F_SEAL_GROW));
    check("add nothing after F_SEAL_SEAL", fcntl(fd, F_ADD_SEALS, 0));
    int d = dup(fd);
    show("seals through dup", fcntl(d, F_GET_SEALS));
    return 0;
}
