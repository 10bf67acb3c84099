/* prctl(PR_SET_MM): with CAP_SYS_RESOURCE a process may say where its
 * arguments, environment, heap... are (setproctitle, CRIU); /proc/PID/
 * cmdline then reads the new range. Linux 6.1's checks: arg5 (and arg4
 * but for AUXV/MAP/MAP_SIZE) must be 0, addresses in [mmap_min_addr,
 * TASK_SIZE), pairs ordered; PR_SET_MM_MAP takes a whole struct
 * prctl_mm_map (104 bytes, PR_SET_MM_MAP_SIZE) and needs no capability;
 * the executable cannot change while it is mapped (EBUSY). */
#include "common.h"
#include <sys/mman.h>
#include <sys/prctl.h>

#ifndef PR_SET_MM
#define PR_SET_MM 35
#endif
#define MM_START_CODE 1
#define MM_END_CODE 2
#define MM_START_STACK 5
#define MM_START_BRK 6
#define MM_BRK 7
#define MM_ARG_START 8
#define MM_ARG_END 9
#define MM_ENV_START 10
#define MM_ENV_END 11
#define MM_AUXV 12
#define MM_EXE_FILE 13
#define MM_MAP 14
#define MM_MAP_SIZE 15

struct mm_map {
    uint64_t start_code, end_code, start_data, end_data, start_brk, brk, start_stack;
    uint64_t arg_start, arg_end, env_start, env_end;
    uint64_t auxv;
    uint32_t auxv_size, exe_fd;
};

/* /proc/self/stat fields (1-based) 26 27 28 45 46 47 48 49 50 51. */
static int read_map(struct mm_map *m)
{
    char buf[4096];
    int fd = open("/proc/self/stat", O_RDONLY);
    int n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    unsigned long long f[64] = {0};
    int i = 3;
    for (char *t = strtok(strrchr(buf, ')') + 2, " \n"); t && i < 64; t = strtok(NULL, " \n"))
        f[i++] = strtoull(t, NULL, 10);
    memset(m, 0, sizeof *m);
    m->start_code = f[26];
    m->end_code = f[27];
    m->start_stack = f[28];
    m->start_data = f[45];
    m->end_data = f[46];
    m->start_brk = f[47];
    m->arg_start = f[48];
    m->arg_end = f[49];
    m->env_start = f[50];
    m->env_end = f[51];
    m->brk = (uint64_t)(unsigned long)sbrk(0);
    m->exe_fd = (uint32_t)-1;
    return 0;
}

static void cmdline(const char *label)
{
    char buf[256];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    int n = read(fd, buf, sizeof buf - 1);
    close(fd);
    for (int i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = '|';
    out("%s: cmdline %d bytes: %.*s", label, n, n > 0 ? n : 0, buf);
}

static long set(int opt, unsigned long addr, unsigned long a4, unsigned long a5)
{
    return prctl(PR_SET_MM, opt, addr, a4, a5);
}

int main(void)
{
    unsigned size = 0;
    show("MAP_SIZE", set(MM_MAP_SIZE, (unsigned long)&size, 0, 0));
    out("struct prctl_mm_map size: %u", size);
    show("MAP_SIZE to a bad pointer", set(MM_MAP_SIZE, 16, 0, 0));

    char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(page, "new\0title\0", 10);
    unsigned long a = (unsigned long)page;

    show("arg5 set", set(MM_ARG_START, a, 0, 1));
    show("arg4 set", set(MM_ARG_START, a, 1, 0));
    show("address below mmap_min_addr", set(MM_ARG_START, 4096, 0, 0));
    show("address at TASK_SIZE", set(MM_ARG_START, 0x7ffffffff000UL, 0, 0));
    show("unknown sub-option", set(99, a, 0, 0));
    show("arg_end below arg_start", set(MM_ARG_END, 0x10000, 0, 0));
    show("start_code at end_code", set(MM_START_CODE, 0x7ffffff00000UL, 0, 0));
    cmdline("before");
    show("ARG_START", set(MM_ARG_START, a, 0, 0));
    show("ARG_END", set(MM_ARG_END, a + 10, 0, 0));
    cmdline("after");
    struct mm_map m;
    read_map(&m);
    out("stat shows the new range: %s", yesno(m.arg_start == a && m.arg_end == a + 10));
    show("ENV_END below ENV_START", set(MM_ENV_END, 0x10000, 0, 0));

    /* The auxiliary vector: at most AT_VECTOR_SIZE words. */
    uint64_t auxv[64] = {6, 4096, 0, 0};
    show("AUXV 384 bytes", set(MM_AUXV, (unsigned long)auxv, 384, 0));
    show("AUXV 392 bytes", set(MM_AUXV, (unsigned long)auxv, 392, 0));
    show("AUXV 32 bytes", set(MM_AUXV, (unsigned long)auxv, 32, 0));
    int fd = open("/proc/self/auxv", O_RDONLY);
    char abuf[1024];
    out("auxv now %d bytes", (int)read(fd, abuf, sizeof abuf));
    close(fd);
    show("AUXV bad pointer", set(MM_AUXV, 16, 16, 0));

    /* The executable is mapped: it cannot be replaced. */
    int self = open("/proc/self/exe", O_RDONLY);
    show("EXE_FILE while mapped", set(MM_EXE_FILE, self, 0, 0));
    show("EXE_FILE bad fd", set(MM_EXE_FILE, 999, 0, 0));
    int dir = open("/", O_RDONLY | O_DIRECTORY);
    show("EXE_FILE a directory", set(MM_EXE_FILE, dir, 0, 0));

    /* PR_SET_MM_MAP: the whole layout at once. */
    read_map(&m);
    show("MAP as it is", set(MM_MAP, (unsigned long)&m, sizeof m, 0));
    show("MAP wrong size", set(MM_MAP, (unsigned long)&m, sizeof m - 8, 0));
    show("MAP bad pointer", set(MM_MAP, 16, sizeof m, 0));
    struct mm_map bad = m;
    bad.start_code = bad.end_code;
    show("MAP start_code == end_code", set(MM_MAP, (unsigned long)&bad, sizeof bad, 0));
    bad = m;
    bad.auxv = (uint64_t)(unsigned long)auxv;
    bad.auxv_size = 392;
    show("MAP auxv too long", set(MM_MAP, (unsigned long)&bad, sizeof bad, 0));
    bad.auxv = 0;
    bad.auxv_size = 16;
    show("MAP auxv size without pointer", set(MM_MAP, (unsigned long)&bad, sizeof bad, 0));
    m.arg_start = a + 4;
    m.arg_end = a + 10;
    show("MAP with a new argument range", set(MM_MAP, (unsigned long)&m, sizeof m, 0));
    cmdline("after MAP");

    /* Without CAP_SYS_RESOURCE. */
    pid_t child = fork();
    if (child == 0) {
        if (setgid(65534) || setuid(65534))
            _exit(2);
        show("nobody: ARG_START", set(MM_ARG_START, a, 0, 0));
        show("nobody: AUXV", set(MM_AUXV, (unsigned long)auxv, 16, 0));
        struct mm_map mine;
        read_map(&mine);
        show("nobody: MAP", set(MM_MAP, (unsigned long)&mine, sizeof mine, 0));
        mine.exe_fd = self;
        show("nobody: MAP with exe_fd", set(MM_MAP, (unsigned long)&mine, sizeof mine, 0));
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    out("child exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
