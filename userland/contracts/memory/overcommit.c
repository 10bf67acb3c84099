/* /proc/sys/vm/overcommit_memory and overcommit_ratio: the heuristic mode
 * (0) refuses a private writable mapping larger than RAM but not a
 * read-only or MAP_NORESERVE one; mode 1 grants it; strict mode (2)
 * refuses commitments past RAM * ratio / 100, MAP_NORESERVE or not, and brk
 * growth past it; CommitLimit follows the ratio; bad values are EINVAL,
 * and only root may write. */
#include "common.h"
#include <sys/mman.h>

static void put(const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/sys/vm/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        out("open %s: %s", name, errname(errno));
        return;
    }
    ssize_t n = write(fd, text, strlen(text));
    out("write %s %s: %s", name, text, n < 0 ? errname(errno) : "ok");
    close(fd);
}

static void get(const char *name)
{
    char path[64], buf[32] = {0};
    snprintf(path, sizeof path, "/proc/sys/vm/%s", name);
    int fd = open(path, O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    out("%s: %s", name, strtok(buf, "\n"));
}

static void try_map(const char *label, size_t len, int prot, int flags)
{
    void *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);
    out("%s: %s", label, p == MAP_FAILED ? errname(errno) : "ok");
    if (p != MAP_FAILED)
        munmap(p, len);
}

static long meminfo(const char *key)
{
    char buf[4096] = {0};
    int fd = open("/proc/meminfo", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    char *p = strstr(buf, key);
    return p ? atol(p + strlen(key) + 1) : -1;
}

static void limit_is(const char *label, long percent)
{
    long total = meminfo("MemTotal"), limit = meminfo("CommitLimit");
    long want = total * percent / 100;
    out("%s: %s", label, yesno(labs(limit - want) <= 8));
}

int main(void)
{
    const size_t huge = 1UL << 40, big = 300UL << 20, small = 1UL << 20;
    const int rw = PROT_READ | PROT_WRITE;
    get("overcommit_memory");
    get("overcommit_ratio");
    limit_is("CommitLimit is half of MemTotal", 50);
    out("Committed_AS above 0: %s", yesno(meminfo("Committed_AS") > 0));

    try_map("mode 0: 1 TiB private writable", huge, rw, MAP_PRIVATE);
    try_map("mode 0: 1 TiB read-only", huge, PROT_READ, MAP_PRIVATE);
    try_map("mode 0: 1 TiB MAP_NORESERVE", huge, rw, MAP_PRIVATE | MAP_NORESERVE);
    try_map("mode 0: 1 TiB shared", huge, rw, MAP_SHARED);
    try_map("mode 0: 300 MiB private writable", big, rw, MAP_PRIVATE);

    put("overcommit_memory", "1");
    get("overcommit_memory");
    try_map("mode 1: 1 TiB private writable", huge, rw, MAP_PRIVATE);
    try_map("mode 1: 1 TiB shared", huge, rw, MAP_SHARED);

    put("overcommit_memory", "2");
    try_map("mode 2: 1 TiB private writable", huge, rw, MAP_PRIVATE);
    try_map("mode 2: 300 MiB private writable", big, rw, MAP_PRIVATE);
    try_map("mode 2: 300 MiB MAP_NORESERVE", big, rw, MAP_PRIVATE | MAP_NORESERVE);
    try_map("mode 2: 300 MiB shared", big, rw, MAP_SHARED);
    try_map("mode 2: 1 TiB read-only", huge, PROT_READ, MAP_PRIVATE);
    try_map("mode 2: 1 MiB private writable", small, rw, MAP_PRIVATE);
    long start = syscall(SYS_brk, 0);
    long moved = syscall(SYS_brk, start + (long)big);
    out("mode 2: brk up 300 MiB moves it: %s", yesno(moved != start));
    moved = syscall(SYS_brk, start + (long)small);
    out("mode 2: brk up 1 MiB moves it: %s", yesno(moved == start + (long)small));
    syscall(SYS_brk, start);
    put("overcommit_ratio", "100");
    get("overcommit_ratio");
    limit_is("CommitLimit is MemTotal", 100);
    put("overcommit_ratio", "50");

    put("overcommit_memory", "3");
    put("overcommit_memory", "-1");
    put("overcommit_memory", "abc");
    put("overcommit_memory", "0");
    get("overcommit_memory");

    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        put("overcommit_memory", "1");
        _exit(0);
    }
    reap("uid 1000 child", pid);
    get("overcommit_memory");
    return 0;
}
