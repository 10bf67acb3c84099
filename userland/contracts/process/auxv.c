/* The auxiliary vector execve gives a static program: page size, ids,
 * AT_SECURE, AT_RANDOM (16 bytes), AT_EXECFN (the path passed to execve),
 * AT_PHDR/AT_PHNUM/AT_ENTRY describing this very binary, and the argv/envp
 * layout on the initial stack. */
#include "common.h"
#include <elf.h>
#include <sys/auxv.h>

extern char **environ;

int main(int argc, char **argv)
{
    out("AT_PAGESZ: %lu", getauxval(AT_PAGESZ));
    out("AT_UID=%lu AT_EUID=%lu AT_GID=%lu AT_EGID=%lu", getauxval(AT_UID), getauxval(AT_EUID),
        getauxval(AT_GID), getauxval(AT_EGID));
    out("AT_SECURE: %lu", getauxval(AT_SECURE));
    out("AT_CLKTCK: %lu", getauxval(AT_CLKTCK));
    unsigned char *rnd = (unsigned char *)getauxval(AT_RANDOM);
    int nz = 0;
    if (rnd)
        for (int i = 0; i < 16; i++)
            nz |= rnd[i];
    out("AT_RANDOM present and not all zero: %s", yesno(rnd && nz));
    const char *fn = (const char *)getauxval(AT_EXECFN);
    out("AT_EXECFN: %s", fn ? fn : "(none)");
    out("AT_EXECFN equals argv[0] here: %s", yesno(fn && argc > 0 && strcmp(fn, argv[0]) == 0));
    Elf64_Phdr *ph = (Elf64_Phdr *)getauxval(AT_PHDR);
    unsigned long phnum = getauxval(AT_PHNUM);
    out("AT_PHENT: %lu", getauxval(AT_PHENT));
    int loads = 0, has_phdr_or_load = 0;
    for (unsigned long i = 0; ph && i < phnum; i++) {
        if (ph[i].p_type == PT_LOAD)
            loads++;
        if (ph[i].p_type == PT_LOAD || ph[i].p_type == PT_PHDR)
            has_phdr_or_load = 1;
    }
    out("program headers readable with a PT_LOAD: %s", yesno(loads > 0 && has_phdr_or_load));
    extern char _start[] __attribute__((weak));
    out("AT_ENTRY is _start: %s", yesno(_start && getauxval(AT_ENTRY) == (unsigned long)_start));
    errno = 0;
    unsigned long none = getauxval(12345);
    out("unknown type: %lu %s", none, errname(errno));
    /* argv and envp as the kernel laid them out. */
    out("argc=%d argv[argc] is NULL: %s", argc, yesno(argv[argc] == NULL));
    int n = 0;
    for (char **e = environ; *e; e++)
        n++;
    out("environment entries: %d, envp follows argv: %s", n, yesno(environ == argv + argc + 1));
    for (char **e = environ; *e; e++)
        out("  %s", *e);
    /* The stack is 16-byte aligned at entry; argv lives above our frame. */
    char local;
    out("argv above the current frame: %s", yesno((char *)argv > &local));
    return 0;
}
