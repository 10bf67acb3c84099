/* syslog(2) (klogctl) and /dev/kmsg: the kernel log's record format, the
 * actions and their errors, messages written to /dev/kmsg, clearing, and
 * that only root may read it (Debian sets dmesg_restrict). */
#include "../common.h"
#include <sys/klog.h>

static char buf[1 << 20];

static int contains_line(const char *text, int len, const char *needle)
{
    char saved = buf[len];
    buf[len] = 0;
    int found = strstr(text, needle) != NULL;
    buf[len] = saved;
    return found;
}

int main(void)
{
    int size = klogctl(10, NULL, 0); /* SYSLOG_ACTION_SIZE_BUFFER */
    out("buffer size positive: %s", yesno(size > 0));
    int len = klogctl(3, buf, sizeof buf - 1); /* READ_ALL */
    out("read all returns text: %s", yesno(len > 0));
    buf[len > 0 ? len : 0] = 0;
    int good = 1, lines = 0;
    for (char *l = buf; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        unsigned prefix;
        unsigned long secs, usecs;
        char close1, close2;
        if (sscanf(l, "<%u%c[%lu.%6lu%c", &prefix, &close1, &secs, &usecs, &close2) != 5 || close1 != '>' || close2 != ']')
            good = 0;
        lines++;
        if (!strchr(l, '\n'))
            good = 0;
    }
    out("every record is '<level>[seconds.micros] text\\n': %s", yesno(good && lines > 0));

    int kmsg = open("/dev/kmsg", O_WRONLY);
    check("open /dev/kmsg for writing", kmsg);
    check("write with a level", write(kmsg, "<5>contract-kmsg-marker\n", 24));
    check("write without a level", write(kmsg, "contract-kmsg-plain\n", 20));
    close(kmsg);
    len = klogctl(3, buf, sizeof buf - 1);
    out("marker has facility user, level 5: %s", yesno(contains_line(buf, len, "<13>[") && contains_line(buf, len, "] contract-kmsg-marker\n")));
    out("plain message is user warning: %s", yesno(contains_line(buf, len, "] contract-kmsg-plain\n")));
    char *plain = strstr(buf, "] contract-kmsg-plain");
    if (plain) {
        char *start = plain;
        while (start > buf && start[-1] != '\n')
            start--;
        out("plain message prefix: %.4s", start);
    }

    int r = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    check("open /dev/kmsg for reading", r);
    char rec[2048];
    ssize_t n = read(r, rec, sizeof rec - 1);
    rec[n > 0 ? n : 0] = 0;
    unsigned prefix;
    unsigned long long seq, usec;
    char dash;
    out("first record: %s", yesno(sscanf(rec, "%u,%llu,%llu,%c;", &prefix, &seq, &usec, &dash) == 4 && dash == '-' && rec[n - 1] == '\n'));
    int found = 0;
    for (int i = 0; i < 100000; i++) {
        n = read(r, rec, sizeof rec - 1);
        if (n <= 0)
            break;
        rec[n] = 0;
        if (strstr(rec, ";contract-kmsg-marker\n"))
            found = 1, out("marker record prefix: %u", (sscanf(rec, "%u,", &prefix), prefix));
    }
    out("marker read from /dev/kmsg: %s", yesno(found));
    out("end of the log: %s", n < 0 ? errname(errno) : "data");
    check("read into a tiny buffer", (lseek(r, 0, SEEK_SET), read(r, rec, 2)));
    close(r);

    out("unread size non-negative: %s", yesno(klogctl(9, NULL, 0) >= 0));
    check("CONSOLE_LEVEL 0", klogctl(8, NULL, 0));
    check("CONSOLE_LEVEL 9", klogctl(8, NULL, 9));
    check("unknown action", klogctl(11, NULL, 0));
    check("read all into NULL", klogctl(3, NULL, 10));
    check("read all, negative length", klogctl(3, buf, -1));
    check("read into NULL", klogctl(2, NULL, 10));
    check("close", klogctl(0, NULL, 0));
    check("open", klogctl(1, NULL, 0));
    check("clear", klogctl(5, NULL, 0));
    len = klogctl(3, buf, sizeof buf - 1);
    out("marker gone after clear: %s", yesno(len >= 0 && !contains_line(buf, len, "contract-kmsg-marker")));

    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        check("uid 1000 reads the log", klogctl(3, buf, 100));
        check("uid 1000 asks the size", klogctl(10, NULL, 0));
        check("uid 1000 opens", klogctl(1, NULL, 0));
        _exit(0);
    }
    reap("uid 1000", pid);
    return 0;
}
