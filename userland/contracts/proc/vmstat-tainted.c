/* /proc/vmstat: the counters vmstat(8) reads are there (nr_free_pages,
 * nr_dirty, pgpgin, pgpgout, pswpin, pswpout, pgfault, oom_kill), one
 * "name value" per line, and pgfault grows by at least the pages a
 * process touches. /proc/sys/kernel/tainted: a number; root may add a
 * flag (it stays), bits past the last flag are dropped, uid 1000 may not
 * open it for writing (EACCES), and text that is not a number is EINVAL. */
#include "common.h"
#include <sys/mman.h>

static long long field(const char *name)
{
    FILE *f = fopen("/proc/vmstat", "r");
    if (!f)
        return -1;
    char key[64];
    long long value, found = -1;
    int lines = 0, good = 0;
    while (fscanf(f, "%63s %lld", key, &value) == 2) {
        lines++;
        good++;
        if (strcmp(key, name) == 0)
            found = value;
    }
    fclose(f);
    return lines == good ? found : -2;
}

static unsigned long long tainted(void)
{
    char buf[64] = "";
    int fd = open("/proc/sys/kernel/tainted", O_RDONLY);
    read(fd, buf, sizeof buf - 1);
    close(fd);
    return strtoull(buf, NULL, 10);
}

static void write_tainted(const char *label, const char *text)
{
    int fd = open("/proc/sys/kernel/tainted", O_WRONLY);
    if (fd < 0) {
        out("%s: open %s", label, errname(errno));
        return;
    }
    ssize_t w = write(fd, text, strlen(text));
    out("%s: write %s", label, w >= 0 ? "ok" : errname(errno));
    close(fd);
}

int main(void)
{
    const char *names[] = { "nr_free_pages", "nr_dirty", "nr_file_pages", "pgpgin", "pgpgout", "pswpin", "pswpout", "pgfault", "oom_kill" };
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
        out("%s present: %s", names[i], yesno(field(names[i]) >= 0));
    long long before = field("pgfault");
    size_t len = 200 * 4096;
    volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t i = 0; i < len; i += 4096)
        p[i] = 1;
    long long after = field("pgfault");
    out("pgfault grew by 200 or more: %s", yesno(after - before >= 200));

    unsigned long long t0 = tainted();
    write_tainted("root adds flag 3 (TAINT_FORCED_RMMOD, value 8)", "8\n");
    unsigned long long t1 = tainted();
    out("flag 3 set: %s, earlier flags kept: %s", yesno(t1 & 8), yesno((t1 & t0) == t0));
    write_tainted("root writes 0", "0\n");
    out("flag 3 still set: %s", yesno(tainted() & 8));
    write_tainted("root writes 1<<40", "1099511627776\n");
    out("bit 40 set: %s", yesno(tainted() >> 40 & 1));
    write_tainted("root writes text", "abc\n");
    pid_t pid = fork();
    if (pid == 0) {
        setgid(1000);
        setuid(1000);
        write_tainted("uid 1000", "16\n");
        _exit(0);
    }
    reap("uid 1000 child", pid);
    return 0;
}
