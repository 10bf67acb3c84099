/* What glibc's loader and startup take from the kernel: the auxiliary
 * vector of a dynamically linked program (AT_BASE is the loader's load
 * address, AT_ENTRY the program's, AT_PHDR its headers, AT_PLATFORM,
 * AT_HWCAP/AT_HWCAP2 as the CPU reports them, AT_MINSIGSTKSZ),
 * the objects dl_iterate_phdr lists (the vDSO by its soname), the stack
 * and heap layout rules glibc checks (non-executable stack), /proc/self/exe,
 * the resource limits and sysconf values that do not depend on the
 * machine, and glibc's version. */
#include "common.h"
#include <cpuid.h>
#include <elf.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <sys/auxv.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/resource.h>

static unsigned long ld_base, prog_base;
static int show_obj(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size; (void)data;
    const char *name = info->dlpi_name;
    if (strstr(name, "ld-linux"))
        ld_base = info->dlpi_addr;
    if (!*name)
        prog_base = info->dlpi_addr;
    int tls = 0, relro = 0, stack = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        tls |= info->dlpi_phdr[i].p_type == PT_TLS;
        relro |= info->dlpi_phdr[i].p_type == PT_GNU_RELRO;
        if (info->dlpi_phdr[i].p_type == PT_GNU_STACK)
            stack = 1 + !!(info->dlpi_phdr[i].p_flags & PF_X);
    }
    if (strncmp(name, "linux-vdso", 10) == 0) /* (its layout is the kernel's own business) */
        out("object '%s'", name);
    else
        out("object '%s': %d headers, tls %d relro %d stack %s", name, info->dlpi_phnum, tls, relro,
            stack == 0 ? "none" : stack == 1 ? "rw" : "rwx");
    return 0;
}

/* The auxiliary vector as the kernel wrote it (glibc's getauxval(AT_HWCAP)
 * answers with its own x86 flags): it follows the environment on the stack. */
static unsigned long kernel_aux(char **envp, unsigned long type)
{
    while (*envp)
        envp++;
    for (unsigned long *a = (unsigned long *)(envp + 1); a[0] != AT_NULL; a += 2)
        if (a[0] == type)
            return a[1];
    return 0;
}

int main(int argc, char **argv, char **envp)
{
    (void)argc;
    out("glibc %s", gnu_get_libc_version());
    dl_iterate_phdr(show_obj, NULL);
    out("AT_BASE is the loader's base: %s", getauxval(AT_BASE) == ld_base && ld_base ? "yes" : "no");
    extern char _start[];
    out("AT_ENTRY is _start: %s", getauxval(AT_ENTRY) == (unsigned long)_start ? "yes" : "no");
    ElfW(Phdr) *ph = (ElfW(Phdr) *)getauxval(AT_PHDR);
    out("AT_PHDR inside the program: %s, AT_PHNUM %lu", (unsigned long)ph > prog_base ? "yes" : "no", getauxval(AT_PHNUM));
    const char *plat = (const char *)getauxval(AT_PLATFORM);
    out("AT_PLATFORM: %s", plat ? plat : "(none)");
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    /* Linux reports CPUID.1:EDX as it left it (QEMU's model fixes it). */
    out("AT_HWCAP: %#lx, CPUID.1:EDX %#x", kernel_aux(envp, AT_HWCAP), d);
    out("AT_HWCAP2: %#lx", kernel_aux(envp, AT_HWCAP2));
    /* Its value is the kernel's signal frame size (Linux's depends on
     * the XSAVE state it saves); signals.c runs a handler in that much. */
    out("AT_MINSIGSTKSZ present: %s", kernel_aux(envp, AT_MINSIGSTKSZ) ? "yes" : "no");
    out("_SC_MINSIGSTKSZ is AT_MINSIGSTKSZ or more: %s",
        (unsigned long)sysconf(_SC_MINSIGSTKSZ) >= getauxval(AT_MINSIGSTKSZ) ? "yes" : "no");
    out("AT_EXECFN: %s, argv[0]: %s", (char *)getauxval(AT_EXECFN), argv[0]);
    out("AT_SECURE: %lu, AT_PAGESZ %lu, AT_CLKTCK %lu", getauxval(AT_SECURE), getauxval(AT_PAGESZ), getauxval(AT_CLKTCK));
    errno = 0;
    unsigned long unknown = getauxval(999);
    out("getauxval(unknown 999): %lu %s", unknown, errname(errno));

    char exe[256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    out("/proc/self/exe: %s", exe);
    char *rp = realpath("/lib64/../contracts/./glibc/runtime", NULL);
    out("realpath: %s", rp ? rp : errname(errno));
    free(rp);

    struct rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    out("RLIMIT_STACK soft %lld", (long long)rl.rlim_cur);
    getrlimit(RLIMIT_NOFILE, &rl);
    out("RLIMIT_NOFILE %lld/%lld", (long long)rl.rlim_cur, (long long)rl.rlim_max);
    rl.rlim_cur = 100;
    out("setrlimit NOFILE 100: %d", setrlimit(RLIMIT_NOFILE, &rl));
    out("_SC_OPEN_MAX: %ld", sysconf(_SC_OPEN_MAX));
    out("_SC_PAGESIZE %ld _SC_CLK_TCK %ld _SC_ARG_MAX %ld", sysconf(_SC_PAGESIZE), sysconf(_SC_CLK_TCK), sysconf(_SC_ARG_MAX));
    out("_SC_NPROCESSORS_ONLN >= 1: %s", sysconf(_SC_NPROCESSORS_ONLN) >= 1 ? "yes" : "no");
    cpu_set_t cs;
    out("sched_getaffinity: %d, count matches nprocs: %s", sched_getaffinity(0, sizeof cs, &cs),
        CPU_COUNT(&cs) == sysconf(_SC_NPROCESSORS_ONLN) ? "yes" : "no");
    char rnd[512];
    out("getrandom 512: %zd", getrandom(rnd, sizeof rnd, 0));
    int r = getentropy(rnd, 300);
    out("getentropy 300: %d %s", r, errname(errno));
    return 0;
}
