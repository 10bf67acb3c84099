/* A file mapped from a noexec mount: mmap with PROT_EXEC is EPERM, and
 * mprotect cannot add PROT_EXEC later (Linux clears VM_MAYEXEC: EACCES),
 * private or shared, while PROT_WRITE on a private mapping stays allowed;
 * a file of a mount without noexec may be made executable, and what a
 * mapping may become is fixed when it is made (a remount to noexec
 * afterwards changes nothing for it). */
#include "../common.h"
#include <sys/mman.h>
#include <sys/mount.h>

static void try_map(const char *label, const char *path, int kind)
{
    char l[160];
    int fd = open(path, O_RDONLY);
    snprintf(l, sizeof l, "%s: mmap PROT_EXEC", label);
    void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, kind, fd, 0);
    out("%s: %s", l, p == MAP_FAILED ? errname(errno) : "ok");
    if (p != MAP_FAILED)
        munmap(p, 4096);
    p = mmap(NULL, 4096, PROT_READ, kind, fd, 0);
    snprintf(l, sizeof l, "%s: mmap PROT_READ", label);
    out("%s: %s", l, p == MAP_FAILED ? errname(errno) : "ok");
    if (p == MAP_FAILED) {
        close(fd);
        return;
    }
    snprintf(l, sizeof l, "%s: mprotect +PROT_EXEC", label);
    check(l, mprotect(p, 4096, PROT_READ | PROT_EXEC));
    snprintf(l, sizeof l, "%s: mprotect PROT_EXEC alone", label);
    check(l, mprotect(p, 4096, PROT_EXEC));
    if (kind == MAP_PRIVATE) {
        snprintf(l, sizeof l, "%s: mprotect +PROT_WRITE", label);
        check(l, mprotect(p, 4096, PROT_READ | PROT_WRITE));
    }
    snprintf(l, sizeof l, "%s: mprotect PROT_NONE", label);
    check(l, mprotect(p, 4096, PROT_NONE));
    munmap(p, 4096);
    close(fd);
}

int main(void)
{
    mkdir("nx", 0755);
    mkdir("ex", 0755);
    check("mount tmpfs noexec on nx", mount("none", "nx", "tmpfs", MS_NOEXEC, NULL));
    check("mount tmpfs on ex", mount("none", "ex", "tmpfs", 0, NULL));
    put_file("nx/f", "data");
    put_file("ex/f", "data");
    try_map("noexec private", "nx/f", MAP_PRIVATE);
    try_map("noexec shared", "nx/f", MAP_SHARED);
    try_map("exec private", "ex/f", MAP_PRIVATE);
    try_map("exec shared", "ex/f", MAP_SHARED);
    /* Mapped before the mount became noexec. */
    int fd = open("ex/f", O_RDONLY);
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    check("remount ex noexec", mount(NULL, "ex", NULL, MS_REMOUNT | MS_NOEXEC, NULL));
    check("mapped before: mprotect +PROT_EXEC", mprotect(p, 4096, PROT_READ | PROT_EXEC));
    munmap(p, 4096);
    p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    check("mapped after: mprotect +PROT_EXEC", mprotect(p, 4096, PROT_READ | PROT_EXEC));
    munmap(p, 4096);
    close(fd);
    void *anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    check("anonymous: mprotect +PROT_EXEC", mprotect(anon, 4096, PROT_READ | PROT_EXEC));
    check("umount nx", umount("nx"));
    check("umount ex", umount("ex"));
    return 0;
}
