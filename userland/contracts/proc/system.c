/* procfs's system files: meminfo's keys in Linux's order and format,
 * /proc/stat's cpu lines and counters, uptime, loadavg, cpuinfo,
 * version, filesystems, cmdline, mounts, and /proc/sys/kernel. */
#include "../common.h"
#include <sys/utsname.h>

static char text[65536];

static char *slurp(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("open %s: %s", path, errname(errno));
        text[0] = 0;
        return text;
    }
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return text;
}

static int count_lines_starting(const char *t, const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *l = t; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (strncmp(l, prefix, len) == 0)
            n++;
    return n;
}

int main(void)
{
    /* meminfo: "Key:" padded to 16 columns, the value right-aligned in 8,
     * then " kB" (HugePages_ counts without a unit). */
    char *t = slurp("/proc/meminfo");
    char keys[4096] = "";
    int formatted = 1;
    unsigned long total = 0, free_kb = 0, avail = 0;
    for (char *l = strtok(t, "\n"); l; l = strtok(NULL, "\n")) {
        size_t klen = strcspn(l, ":");
        strncat(keys, l, klen);
        strcat(keys, " ");
        if (!strncmp(l, "MemTotal:", 9))
            total = strtoul(l + 9, NULL, 10);
        if (!strncmp(l, "MemFree:", 8))
            free_kb = strtoul(l + 8, NULL, 10);
        if (!strncmp(l, "MemAvailable:", 13))
            avail = strtoul(l + 13, NULL, 10);
        size_t len = strlen(l);
        int huge_count = !strncmp(l, "HugePages_", 10);
        if (klen < 15 && (len < 24 || l[15] != ' ' || (!huge_count && strcmp(l + len - 3, " kB") != 0)))
            formatted = 0;
    }
    out("meminfo keys: %s", keys);
    out("meminfo columns: %s", yesno(formatted));
    out("MemTotal >= MemAvailable >= 0 and MemFree <= MemTotal: %s", yesno(total > 0 && free_kb <= total && avail <= total));

    t = slurp("/proc/stat");
    unsigned long long f[10];
    int got = sscanf(t, "cpu  %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]);
    out("stat: 'cpu ' line with %d numbers", got);
    out("stat: cpuN lines match online CPUs: %s", yesno(count_lines_starting(t, "cpu") - 1 == sysconf(_SC_NPROCESSORS_ONLN)));
    const char *counters[] = {"intr ", "ctxt ", "btime ", "processes ", "procs_running ", "procs_blocked ", "softirq "};
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        out("stat has %s: %s", counters[i], yesno(count_lines_starting(t, counters[i]) == 1));
    char *bt = strstr(t, "\nbtime ");
    long btime = bt ? atol(bt + 7) : 0;
    out("btime in the past: %s", yesno(btime > 0 && btime <= time(NULL)));
    char *running = strstr(t, "\nprocs_running ");
    out("at least one running: %s", yesno(running && atol(running + 15) >= 1));

    t = slurp("/proc/uptime");
    double up = -1, idle = -1;
    char tail[8] = "";
    got = sscanf(t, "%lf %lf%1[\n]", &up, &idle, tail);
    out("uptime: %d fields, two decimals: %s, positive: %s", got, yesno(strchr(t, '.') && strchr(t, '.')[3] == ' '), yesno(up > 0 && idle >= 0));

    t = slurp("/proc/loadavg");
    double l1, l5, l15;
    int run, all, last;
    got = sscanf(t, "%lf %lf %lf %d/%d %d", &l1, &l5, &l15, &run, &all, &last);
    out("loadavg: %d fields, running <= total: %s, last pid >= ours: %s", got, yesno(run >= 1 && run <= all), yesno(last >= getpid()));

    t = slurp("/proc/cpuinfo");
    out("cpuinfo: processor entries match online CPUs: %s", yesno(count_lines_starting(t, "processor\t: ") == sysconf(_SC_NPROCESSORS_ONLN)));
    const char *cpu_keys[] = {"vendor_id\t: ", "cpu family\t: ", "model\t\t: ", "model name\t: ", "flags\t\t: ", "bogomips\t: "};
    for (size_t i = 0; i < sizeof cpu_keys / sizeof cpu_keys[0]; i++)
        out("cpuinfo has '%.*s': %s", (int)strcspn(cpu_keys[i], "\t"), cpu_keys[i], yesno(count_lines_starting(t, cpu_keys[i]) == sysconf(_SC_NPROCESSORS_ONLN)));
    out("cpuinfo flags has fpu: %s", yesno(strstr(t, "\nflags\t\t: fpu ") != NULL));

    struct utsname u;
    uname(&u);
    t = slurp("/proc/version");
    char want[512];
    snprintf(want, sizeof want, "%s version %s ", u.sysname, u.release);
    out("version starts with 'Linux version <release> ': %s", yesno(strncmp(t, want, strlen(want)) == 0));
    out("version has uname's version: %s", yesno(strstr(t, u.version) != NULL));
    t = slurp("/proc/filesystems");
    out("filesystems: proc %s, tmpfs %s, sysfs %s, devtmpfs %s", yesno(strstr(t, "nodev\tproc\n") != NULL), yesno(strstr(t, "nodev\ttmpfs\n") != NULL),
        yesno(strstr(t, "nodev\tsysfs\n") != NULL), yesno(strstr(t, "nodev\tdevtmpfs\n") != NULL));
    t = slurp("/proc/cmdline");
    out("cmdline is one line: %s", yesno(strlen(t) > 0 && strchr(t, '\n') == t + strlen(t) - 1));

    char link[64];
    ssize_t n = readlink("/proc/mounts", link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    out("/proc/mounts -> %s", link);
    t = slurp("/proc/mounts");
    for (char *l = strtok(t, "\n"); l; l = strtok(NULL, "\n"))
        if (strstr(l, " /proc ") || strstr(l, " /tmp "))
            out("mount: %s", l);

    out("ostype: %s", slurp("/proc/sys/kernel/ostype"));
    snprintf(want, sizeof want, "%s\n", u.release);
    out("osrelease is uname's: %s", yesno(strcmp(slurp("/proc/sys/kernel/osrelease"), want) == 0));
    out("pid_max is a number: %s", yesno(atol(slurp("/proc/sys/kernel/pid_max")) >= 32768));
    snprintf(want, sizeof want, "%s\n", u.nodename);
    out("hostname is uname's: %s", yesno(strcmp(slurp("/proc/sys/kernel/hostname"), want) == 0));
    int fd = open("/proc/sys/kernel/hostname", O_WRONLY | O_TRUNC);
    check("open hostname for writing", fd);
    check("write hostname", write(fd, "from-proc\nignored", 17));
    close(fd);
    uname(&u);
    out("uname nodename: %s", u.nodename);
    out("hostname file: %s", slurp("/proc/sys/kernel/hostname"));
    check("sethostname", sethostname("proc-system", 11));
    out("hostname file after sethostname: %s", slurp("/proc/sys/kernel/hostname"));
    fd = open("/proc/sys/kernel/domainname", O_WRONLY);
    write(fd, "example.org", 11);
    close(fd);
    uname(&u);
    out("uname domainname: %s", u.domainname);
    check("write ostype", open("/proc/sys/kernel/ostype", O_WRONLY));
    check("create a file in /proc", open("/proc/new-file", O_WRONLY | O_CREAT, 0644));
    check("unlink /proc/version", unlink("/proc/version"));
    return 0;
}
