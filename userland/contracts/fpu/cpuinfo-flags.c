/* /proc/cpuinfo's flags for the extended FPU state say what the kernel
 * enabled, as Linux's do: xsave and the AVX family once XSAVE is on, the
 * XSAVE variants of CPUID leaf 0xd (xsaveopt, xsavec, xgetbv1, xsaves),
 * and no "osxsave" (Linux never prints it). Not "ospke": Kevlar leaves
 * protection keys off (docs/architecture.md). */
#include "common.h"

static const char *names[] = {
    "fxsr", "xsave", "osxsave", "avx", "avx2", "fma", "f16c", "xsaveopt", "xsavec", "xgetbv1",
    "xsaves", "avx512f", "mpx", "pku", "vaes", "vpclmulqdq",
};

int main(void)
{
    static char buf[65536];
    int fd = open("/proc/cpuinfo", O_RDONLY);
    if (fd < 0) {
        out("open: %s", errname(errno));
        return 0;
    }
    size_t len = 0;
    ssize_t n;
    while (len < sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += n;
    buf[len] = 0;
    close(fd);
    char *line = strstr(buf, "\nflags\t");
    if (!line) {
        out("no flags line");
        return 0;
    }
    char *start = strchr(line, ':');
    char *end = strchr(line + 1, '\n');
    if (!start || !end) {
        out("bad flags line");
        return 0;
    }
    *end = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, " %s", names[i]);
        int found = 0;
        for (char *p = start; (p = strstr(p, want)) != NULL; p++) {
            char after = p[strlen(want)];
            if (after == ' ' || after == 0) {
                found = 1;
                break;
            }
        }
        out("%s: %s", names[i], found ? "yes" : "no");
    }
    return 0;
}
