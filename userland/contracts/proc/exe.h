/* Shared by the tests of /proc/PID/exe: a copy of the running program
 * to execute under another name, and a link's text shown relative to the
 * working directory ("CWD/name"; "elsewhere" outside it). */
#ifndef CONTRACTS_PROC_EXE_H
#define CONTRACTS_PROC_EXE_H
#include "../common.h"

static void copy_self(const char *to) { close(copy_file_open("/proc/self/exe", to, 0755)); }

static void show_link(const char *label, const char *link)
{
    char buf[512], cwd[256];
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    buf[n] = 0;
    getcwd(cwd, sizeof cwd);
    size_t c = strlen(cwd);
    if (strncmp(buf, cwd, c) == 0)
        out("%s: CWD%s", label, buf + c);
    else
        out("%s: elsewhere", label);
}
#endif
