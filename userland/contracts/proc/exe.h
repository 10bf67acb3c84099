/* Shared by the tests of /proc/PID/exe: a copy of the running program
 * to execute under another name, and a link's text shown relative to the
 * working directory ("CWD/name"; "elsewhere" outside it). */
#ifndef CONTRACTS_PROC_EXE_H
#define CONTRACTS_PROC_EXE_H
#include "../common.h"

static void copy_self(const char *to)
{
    int in = open("/proc/self/exe", O_RDONLY);
    int outfd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[4096];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        write(outfd, buf, n);
    close(in);
    close(outfd);
}

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
