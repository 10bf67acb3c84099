/* The vDSO: the kernel maps one (AT_SYSINFO_EHDR) exporting the clock
 * calls, and its readings agree with the system calls: a vDSO reading
 * taken between two system-call readings lies between them, for the
 * realtime and monotonic clocks, also after the wall clock is set. */
#include "common.h"
#include <elf.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>

typedef int (*gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef long (*time_fn)(long *);

static const Elf64_Ehdr *vdso;

/* Finds a dynamic symbol of the vDSO by name (linear search of .dynsym,
 * whose length the DT_HASH table gives). */
static void *vdso_sym(const char *name)
{
    const Elf64_Phdr *ph = (const void *)((const char *)vdso + vdso->e_phoff);
    long base = -1;
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < vdso->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && base < 0)
            base = (long)vdso + ph[i].p_offset - ph[i].p_vaddr;
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const void *)((const char *)vdso + ph[i].p_offset);
    }
    if (base < 0 || !dyn)
        return NULL;
    const Elf64_Sym *syms = NULL;
    const char *strs = NULL;
    const Elf32_Word *hash = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB) syms = (const void *)(base + dyn->d_un.d_ptr);
        if (dyn->d_tag == DT_STRTAB) strs = (const void *)(base + dyn->d_un.d_ptr);
        if (dyn->d_tag == DT_HASH) hash = (const void *)(base + dyn->d_un.d_ptr);
    }
    if (!syms || !strs || !hash)
        return NULL;
    for (Elf32_Word i = 0; i < hash[1]; i++)
        if (syms[i].st_shndx != SHN_UNDEF && strcmp(strs + syms[i].st_name, name) == 0)
            return (void *)(base + syms[i].st_value);
    return NULL;
}

static long long ns_of(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

static void check_clock(const char *label, gettime_fn fn, clockid_t clock)
{
    int ok = 1;
    for (int i = 0; i < 1000 && ok; i++) {
        struct timespec a, v, b;
        syscall(SYS_clock_gettime, clock, &a);
        fn(clock, &v);
        syscall(SYS_clock_gettime, clock, &b);
        ok = ns_of(a) <= ns_of(v) && ns_of(v) <= ns_of(b) && v.tv_nsec >= 0 && v.tv_nsec < 1000000000;
    }
    out("%s: vdso between syscalls: %s", label, yesno(ok));
}

int main(void)
{
    vdso = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    out("AT_SYSINFO_EHDR present: %s", yesno(vdso != NULL));
    if (!vdso)
        return 1;
    out("ELF shared object: %s", yesno(memcmp(vdso->e_ident, ELFMAG, SELFMAG) == 0 && vdso->e_type == ET_DYN));
    const char *names[] = {"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time", "__vdso_getcpu", "__vdso_clock_getres"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        out("%s: %s", names[i], vdso_sym(names[i]) ? "found" : "missing");
    gettime_fn gettime = vdso_sym("__vdso_clock_gettime");
    gettimeofday_fn gtod = vdso_sym("__vdso_gettimeofday");
    time_fn vtime = vdso_sym("__vdso_time");
    if (!gettime || !gtod || !vtime)
        return 1;
    check_clock("CLOCK_MONOTONIC", gettime, CLOCK_MONOTONIC);
    check_clock("CLOCK_REALTIME", gettime, CLOCK_REALTIME);
    check_clock("CLOCK_BOOTTIME", gettime, CLOCK_BOOTTIME);
    /* Clocks the vDSO hands to the kernel still work through it. */
    struct timespec cpu;
    out("CLOCK_PROCESS_CPUTIME_ID: %ld", (long)gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu));
    out("bad clock: %d", gettime(12345, &cpu));
    struct timeval tv;
    struct timespec rt;
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &rt);
    gtod(&tv, NULL);
    long t = vtime(NULL);
    out("gettimeofday not before clock_gettime: %s", yesno(tv.tv_sec > rt.tv_sec || (tv.tv_sec == rt.tv_sec && tv.tv_usec >= rt.tv_nsec / 1000)));
    /* time() reads the clock as of the last tick (Linux's coarse
     * seconds), so just after a second begins it can still say the one
     * before: within a second either way. */
    out("time within a second: %s", yesno(t >= rt.tv_sec - 1 && t <= rt.tv_sec + 1));
    /* Setting the wall clock moves the vDSO's realtime clock too. */
    struct timespec saved, set = {.tv_sec = 2000000000, .tv_nsec = 0}, got;
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &saved);
    if (clock_settime(CLOCK_REALTIME, &set) == 0) {
        gettime(CLOCK_REALTIME, &got);
        out("after clock_settime: %s", yesno(got.tv_sec >= 2000000000 && got.tv_sec < 2000000010));
        clock_settime(CLOCK_REALTIME, &saved);
    } else {
        out("clock_settime: %s", errname(errno));
    }
    check_clock("CLOCK_REALTIME after restore", gettime, CLOCK_REALTIME);
    return 0;
}
