/* The files of /proc/net in a new network namespace, where what they
 * show does not depend on the rest of the system: each one's header
 * lines and line count (dev: lo; if_inet6: ::1 once lo is up; route:
 * only its header, lo's routes being in the local table; sockstat and
 * sockstat6 with nothing in use; snmp's table names and field counts),
 * and the counts in sockstat after a listener and a bound UDP socket. */
#include "procnet.h"

static void lines_of(const char *name, int show)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/net/%s", name);
    if (slurp(path) < 0) {
        out("%s: %s", name, errname(errno));
        return;
    }
    int count = 0;
    char *save;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        count++;
        size_t len = strlen(l), t = len;
        while (t && l[t - 1] == ' ')
            t--;
        l[t] = 0;
        if (count <= show)
            out("  %s[%d] (length %zu): %s", name, count, len, l);
    }
    out("%s: %d lines", name, count);
}

/* snmp: the name lines in full, and the number of values on the others. */
static void snmp(void)
{
    if (slurp("/proc/net/snmp") < 0) {
        out("snmp: %s", errname(errno));
        return;
    }
    int i = 0;
    char *save;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save), i++) {
        if (i % 2 == 0) {
            out("  snmp: %s", l);
        } else {
            int n = 0;
            for (char *p = l; *p; p++)
                n += *p == ' ';
            char head[16];
            snprintf(head, sizeof head, "%s", l);
            *strchr(head, ':') = 0;
            out("  snmp: %s values: %d", head, n);
        }
    }
}

/* The "inuse" numbers of sockstat's TCP and UDP lines, sockstat6's. */
static void inuse(const char *label)
{
    int tcp = -1, udp = -1, tcp6 = -1, udp6 = -1;
    if (slurp("/proc/net/sockstat") >= 0) {
        char *p = strstr(text, "TCP: inuse ");
        if (p)
            tcp = atoi(p + 11);
        p = strstr(text, "\nUDP: inuse ");
        if (p)
            udp = atoi(p + 12);
    }
    if (slurp("/proc/net/sockstat6") >= 0) {
        char *p = strstr(text, "TCP6: inuse ");
        if (p)
            tcp6 = atoi(p + 12);
        p = strstr(text, "UDP6: inuse ");
        if (p)
            udp6 = atoi(p + 12);
    }
    out("%s: TCP inuse %d UDP inuse %d TCP6 inuse %d UDP6 inuse %d", label, tcp, udp, tcp6, udp6);
}

int main(void)
{
    fresh_net();
    lines_of("dev", 3);
    lines_of("if_inet6", 2);
    lines_of("route", 1);
    lines_of("raw", 1);
    lines_of("raw6", 1);
    lines_of("tcp", 1);
    lines_of("tcp6", 1);
    lines_of("udp", 1);
    lines_of("udp6", 1);
    lines_of("unix", 1);
    lines_of("sockstat6", 5);
    snmp();
    /* sockstat's lines without their numbers. */
    if (slurp("/proc/net/sockstat") >= 0) {
        char *save;
        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            char words[256] = "";
            for (char *w = l; *w;) {
                size_t k = strcspn(w, " ");
                if (!(w[0] >= '0' && w[0] <= '9'))
                    strncat(words, w, k), strcat(words, " ");
                w += k;
                w += strspn(w, " ");
            }
            out("  sockstat: %s", words);
        }
    }
    inuse("empty");
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4700);
    check("bind", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 1));
    int u = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(4701), .sin6_addr = in6addr_loopback};
    check("bind udp6", bind(u, (struct sockaddr *)&a6, sizeof a6));
    inuse("a listener and a udp6 socket");
    return 0;
}
