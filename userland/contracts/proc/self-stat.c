/* /proc/self/stat and /proc/self/status: field counts and formats, and
 * that the fields name this process (pid, comm, state, parent, group,
 * session, signal sets, credentials). */
#include "../common.h"

static char *read_text(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("open %s: %s", path, errname(errno));
        return NULL;
    }
    ssize_t n = read_full(fd, buf, size - 1);
    close(fd);
    if (n < 0) {
        out("read %s: %s", path, errname(errno));
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

/* The value of "Key:\t..." in a status text, without the newline. */
static const char *status_field(const char *text, const char *key)
{
    static char value[256];
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            const char *v = line + klen + 1;
            while (*v == '\t')
                v++;
            size_t n = strcspn(v, "\n");
            if (n >= sizeof value)
                n = sizeof value - 1;
            memcpy(value, v, n);
            value[n] = 0;
            return value;
        }
    }
    return "<missing>";
}

static void sigcatch(int s) { (void)s; }

int main(void)
{
    char buf[8192];
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGUSR2, SIG_IGN);
    signal(SIGINT, sigcatch);

    if (!read_text("/proc/self/stat", buf, sizeof buf))
        return 0;
    out("ends with newline: %s", yesno(buf[strlen(buf) - 1] == '\n'));
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    out("comm in parentheses: %s", yesno(open_paren && close_paren && close_paren > open_paren));
    *close_paren = 0;
    out("comm: %s", open_paren + 1);
    out("pid field is getpid: %s", yesno(atol(buf) == getpid()));
    /* Fields after the comm, numbered from 3 as in proc(5). */
    char *fields[64];
    int n = 0;
    for (char *tok = strtok(close_paren + 2, " \n"); tok && n < 64; tok = strtok(NULL, " \n"))
        fields[n++] = tok;
    out("fields in all: %d", n + 2);
    out("state: %s", fields[0]);
    out("ppid is getppid: %s", yesno(atol(fields[1]) == getppid()));
    out("pgrp is getpgrp: %s", yesno(atol(fields[2]) == getpgrp()));
    out("session is getsid: %s", yesno(atol(fields[3]) == getsid(0)));
    out("tty_nr: %s tpgid: %s", fields[4], fields[5]);
    out("num_threads: %s", fields[17]);
    out("nice: %s priority: %s", fields[16], fields[15]);
    out("blocked has SIGUSR1: %s", yesno(strtoull(fields[29], NULL, 10) == (1ull << (SIGUSR1 - 1))));
    out("ignored has SIGUSR2: %s", yesno(strtoull(fields[30], NULL, 10) & (1ull << (SIGUSR2 - 1)) ? 1 : 0));
    out("caught is SIGINT: %s", yesno(strtoull(fields[31], NULL, 10) == (1ull << (SIGINT - 1))));
    out("exit_signal: %s", fields[35]);
    out("vsize non-zero: %s", yesno(atoll(fields[20]) > 0));
    out("rss non-zero: %s", yesno(atoll(fields[21]) > 0));
    unsigned long long start_ticks = strtoull(fields[19], NULL, 10);
    struct timespec up;
    clock_gettime(CLOCK_BOOTTIME, &up);
    out("starttime before now: %s", yesno(start_ticks <= (unsigned long long)up.tv_sec * 100 + up.tv_nsec / 10000000 + 1));
    unsigned long arg_start = strtoul(fields[45], NULL, 10), arg_end = strtoul(fields[46], NULL, 10);
    unsigned long env_start = strtoul(fields[47], NULL, 10), env_end = strtoul(fields[48], NULL, 10);
    extern char **environ;
    out("arg_start is argv[0]: %s", yesno(arg_start == (unsigned long)program_invocation_name));
    out("arguments then environment: %s", yesno(arg_start < arg_end && arg_end <= env_start && env_start < env_end));
    out("env_start is environ[0]: %s", yesno(env_start == (unsigned long)environ[0]));
    out("exit_code: %s", fields[49]);

    if (!read_text("/proc/self/status", buf, sizeof buf))
        return 0;
    out("status keys:");
    char keys[2048] = "";
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        size_t klen = strcspn(line, ":");
        strncat(keys, line, klen);
        strcat(keys, " ");
        if (!nl)
            break;
        line = nl + 1;
    }
    out("  %s", keys);
    out("Name: %s", status_field(buf, "Name"));
    out("Umask: %s", status_field(buf, "Umask"));
    out("State: %s", status_field(buf, "State"));
    out("Pid is getpid: %s", yesno(atol(status_field(buf, "Pid")) == getpid()));
    out("Tgid is getpid: %s", yesno(atol(status_field(buf, "Tgid")) == getpid()));
    out("PPid is getppid: %s", yesno(atol(status_field(buf, "PPid")) == getppid()));
    out("Uid: %s", status_field(buf, "Uid"));
    out("Gid: %s", status_field(buf, "Gid"));
    out("Groups: [%s]", status_field(buf, "Groups"));
    out("Threads: %s", status_field(buf, "Threads"));
    out("SigBlk: %s", status_field(buf, "SigBlk"));
    out("SigIgn: %s", status_field(buf, "SigIgn"));
    out("SigCgt: %s", status_field(buf, "SigCgt"));
    out("CapEff: %s", status_field(buf, "CapEff"));
    out("NoNewPrivs: %s", status_field(buf, "NoNewPrivs"));
    out("VmRSS ends in kB: %s", yesno(strstr(status_field(buf, "VmRSS"), " kB") != NULL));
    out("Cpus_allowed_list: %s", status_field(buf, "Cpus_allowed_list")[0] == '0' ? "starts at 0" : "other");

    /* statm: seven numbers; the resident set fits in the size. */
    if (!read_text("/proc/self/statm", buf, sizeof buf))
        return 0;
    unsigned long m[7];
    int got = sscanf(buf, "%lu %lu %lu %lu %lu %lu %lu", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &m[6]);
    out("statm fields: %d", got);
    out("resident within size: %s", yesno(m[1] > 0 && m[1] <= m[0]));

    /* A file read in pieces is one consistent text. */
    int fd = open("/proc/self/stat", O_RDONLY);
    char a[8192], b[8192];
    ssize_t na = 0, r;
    while ((r = read(fd, a + na, 7)) > 0)
        na += r;
    close(fd);
    a[na] = 0;
    fd = open("/proc/self/stat", O_RDONLY);
    ssize_t nb = read(fd, b, sizeof b - 1);
    close(fd);
    out("read in 7-byte pieces gives a whole line: %s", yesno(na > 0 && a[na - 1] == '\n' && nb > 0 && strchr(a, '\n') == a + na - 1));
    fd = open("/proc/self/stat", O_RDONLY);
    char head[16] = "";
    read(fd, head, 5);
    lseek(fd, 0, SEEK_SET);
    ssize_t again = read(fd, b, sizeof b - 1);
    close(fd);
    out("lseek to 0 reads from the start again: %s", yesno(again > 5 && memcmp(head, b, 5) == 0));
    return 0;
}
