/* Shared by the /proc/net tests: reading a /proc/net file whole, and
 * printing the lines of the sockets a test made (found by their inode
 * numbers, the N of socket:[N], which are never printed) with the fields
 * that do not depend on timing. Each test works in a network namespace of
 * its own (unshare(CLONE_NEWNET), lo brought up) so that only its sockets
 * are there. */
#ifndef CONTRACTS_PROCNET_H
#define CONTRACTS_PROCNET_H
#include "../netns/netns.h"
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>

static char text[65536];

/* Reads `path` into text; returns its length (-1: errno). */
static ssize_t slurp(const char *path) __attribute__((unused));
static ssize_t slurp(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n < 0 ? 0 : n] = 0;
    return n;
}

/* The inode number of fd's socket. */
static unsigned long ino_of(int fd) __attribute__((unused));
static unsigned long ino_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* Brings the fresh namespace's lo up (after unshare(CLONE_NEWNET)). */
static void fresh_net(void) __attribute__((unused));
static void fresh_net(void)
{
    check("unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
    int r = link_set_up(1, 1);
    if (r)
        out("lo up: %s", nlerr(r));
}

/* Splits a line into blank-separated fields (at most max); returns the
 * count. The line is changed. */
static int fields(char *line, char **f, int max) __attribute__((unused));
static int fields(char *line, char **f, int max)
{
    int n = 0;
    for (char *t = strtok(line, " "); t && n < max; t = strtok(NULL, " "))
        f[n++] = t;
    return n;
}

/* ADDR:PORT with an ephemeral port as ADDR:EPH (in a buffer of a few). */
static const char *masked(const char *field)
{
    static char bufs[4][64];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, 64, "%s", field);
    char *colon = strrchr(b, ':');
    if (colon && strtoul(colon + 1, NULL, 16) >= 32768)
        strcpy(colon + 1, "EPH");
    return b;
}

/* For /proc/net/{tcp,udp}[6]: prints the header's length and its text
 * (trailing blanks cut, their count told), then, for each fd of
 * fds[0..n) in that order, its line's fields that do not depend on
 * timing: local and remote address (an ephemeral port, 32768 and up,
 * shows as EPH), state, uid, the number of fields, the line's length in
 * the padded IPv4 files; and the count of lines that are none of them.
 * With `rxq`, the rx_queue too. */
static void inet_file(const char *path, const int *fds, const char *const *names, int n, int rxq) __attribute__((unused));
static void inet_file(const char *path, const int *fds, const char *const *names, int n, int rxq)
{
    if (slurp(path) < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    char *lines[256];
    int count = 0;
    for (char *l = strtok(text, "\n"); l && count < 256; l = strtok(NULL, "\n"))
        lines[count++] = l;
    if (count == 0) {
        out("%s: empty", path);
        return;
    }
    size_t len = strlen(lines[0]), trimmed = len;
    while (trimmed && lines[0][trimmed - 1] == ' ')
        trimmed--;
    out("%s: header length %zu (%zu blanks at the end)", path, len, len - trimmed);
    lines[0][trimmed] = 0;
    out("|%s", lines[0]);
    int others = 0;
    const char *found[16] = {0};
    for (int i = 1; i < count; i++) {
        size_t linelen = strlen(lines[i]);
        char copy[512];
        snprintf(copy, sizeof copy, "%s", lines[i]);
        char *f[32];
        int nf = fields(copy, f, 32);
        unsigned long ino = nf > 9 ? strtoul(f[9], NULL, 10) : 0;
        int which = -1;
        for (int k = 0; k < n; k++)
            if (ino && ino == ino_of(fds[k]))
                which = k;
        if (which < 0) {
            others++;
            continue;
        }
        char line[600], len_text[32] = "";
        if (len != trimmed)
            snprintf(len_text, sizeof len_text, " length %zu", linelen);
        snprintf(line, sizeof line, "  %s: local %s remote %s st %s uid %s%s%s fields %d%s sl-colon %s", names[which], masked(f[1]), masked(f[2]), f[3], f[7],
                 rxq ? " rx_queue " : "", rxq ? strchr(f[4], ':') + 1 : "", nf, len_text, yesno(f[0][strlen(f[0]) - 1] == ':'));
        static char keep[16][600];
        snprintf(keep[which], sizeof keep[which], "%s", line);
        found[which] = keep[which];
    }
    for (int k = 0; k < n; k++) {
        if (found[k])
            out("%s", found[k]);
        else
            out("  %s: not listed", names[k]);
    }
    out("  other lines: %d", others);
}
#endif
