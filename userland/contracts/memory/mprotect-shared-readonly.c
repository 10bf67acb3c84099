/* A shared mapping of a file opened read-only can never become writable:
 * mprotect adding PROT_WRITE fails with EACCES (Linux clears VM_MAYWRITE),
 * for root too, and the file is unchanged; a private mapping of the same
 * file may become writable (its writes stay private). The same for a
 * memfd sealed with F_SEAL_WRITE, and for /dev/zero opened read-only. */
#include <sys/mman.h>
#include "common.h"

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_WRITE 0x0008
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 2U
#endif

static void try(const char *what, int fd, int flags)
{
    char *p = mmap(NULL, 4096, PROT_READ, flags, fd, 0);
    if (p == MAP_FAILED) {
        out("%s: mmap %s", what, errname(errno));
        return;
    }
    int r = mprotect(p, 4096, PROT_READ | PROT_WRITE);
    out("%s: mprotect rw %s", what, r == 0 ? "ok" : errname(errno));
    if (r == 0)
        p[0] = 'X';
    munmap(p, 4096);
}

int main(void)
{
    int w = open("/tmp/mprotect-ro", O_CREAT | O_TRUNC | O_RDWR, 0644);
    write(w, "abc", 3);
    close(w);
    int fd = open("/tmp/mprotect-ro", O_RDONLY);
    try("shared, read-only file", fd, MAP_SHARED);
    try("private, read-only file", fd, MAP_PRIVATE);
    char c = 0;
    pread(fd, &c, 1, 0);
    out("file still starts with: %c", c);
    close(fd);
    int rw = open("/tmp/mprotect-ro", O_RDWR);
    try("shared, read-write file", rw, MAP_SHARED);
    close(rw);
    unlink("/tmp/mprotect-ro");

    int m = syscall(SYS_memfd_create, "sealed", MFD_ALLOW_SEALING);
    ftruncate(m, 4096);
    fcntl(m, F_ADD_SEALS, F_SEAL_WRITE);
    try("shared, memfd sealed against writes", m, MAP_SHARED);
    try("private, memfd sealed against writes", m, MAP_PRIVATE);
    close(m);

    int z = open("/dev/zero", O_RDONLY);
    try("shared, /dev/zero read-only", z, MAP_SHARED);
    close(z);
    return 0;
}
